#!/usr/bin/env python3
"""Parameter sweep: run chakra-cluster over a grid of flags, in parallel, one CSV row per run.

  scripts/sweep.py --trace PREFIX --output DIR \
      --grid nicBandwidth=100Gbps,200Gbps,400Gbps --grid topology=single-switch,leaf-spine \
      [--grid gpusPerHost=4,8] [--grid algorithm=ring,hierarchical] [--set ctrlDeps=false] \
      [--jobs N] [--plot]

Every combination of the --grid values is one run of build/bin/chakra-cluster with those flags
(and the --set ones). A FLAG is a chakra-cluster flag in any spelling it takes (nic-bandwidth,
nicBandwidth); its CSV column is the name as given, and --x/--series match it in any spelling. DIR/sweep.csv gets one row per run: the flags, the iteration time, the
largest and mean exposed communication over the ranks, and per collective type the mean bus
bandwidth (busbw_<TYPE>_GBps) and the mean time of one call (time_<TYPE>_us); the report's
time split (split_compute_pct, split_tp_pct, split_cp_pct, split_ep_pct, split_dp_pct,
split_other_pct, split_bubble_pct: mean shares of the iteration over the ranks) and, for a
training step that states its FLOPs (chakra_generator --workload llm), tokens_per_s_per_gpu,
tflops_per_gpu and mfu_pct. Each run may have a trace of its own (layouts of an LLM step, say):
--grid trace=P1,P2, or trace=P in every --variant, instead of --trace. Runs go in
parallel (default: the number of cores); the CSV is in grid order, so the same flags give the
same file.

--plot draws a picture with gnuplot: a metric (--y, default iteration_us; any metric column:
exposed_comm_max_us, busbw_ALL_REDUCE_GBps, time_ALL_TO_ALL_us, fabric_pfc_pauses, ...) against
a grid flag (--x, default nicBandwidth when it is swept, else the first grid flag). Values with
units (100Gbps, 4MiB, 500ns) are placed by their magnitude; names (ring, tree) one beside the
other in grid order. --log-x and --log-y make the axes logarithmic. Lines: one per combination
of the other grid flags, or with --series FLAG one per value of FLAG, and one panel per
combination of the grid flags left. DIR/sweep.png for the default metric, DIR/sweep-<y>.png
for another, each with its data (-plot.dat) and gnuplot script (-plot.gp) beside it.

Topologies: --grid topology=leaf-spine,rail-optimized sweeps kinds that share their flags;
--variant NAME:FLAG=V,FLAG=V,... (repeatable) makes a 'variant' column whose runs each set
their own flags, for kinds with parameters of their own, e.g.
  --variant rail:topology=rail-optimized,spines=4 --variant tree:topology=fat-tree,fatTreeK=8
--grid topologyFile=a.yml,b.yml sweeps topology files. --transport tcp,flow sweeps the
transport models (the same as --grid transport=tcp,flow); column model_run says which model
ran (with --transport auto it depends on the cluster's size).

Several jobs on one cluster (chakra-cluster --job): --job SPEC (repeatable) runs those jobs in
every run instead of --trace; --mix NAME=SPEC;SPEC;... (repeatable) makes a 'mix' column whose
runs each run their own jobs. --grid placement=contiguous,spread sweeps the placement, and
--set interference=true measures each job alone too. A run of several jobs has iteration_us (the
latest job's), finished (every job), and per job job_<name>_iteration_us, and with interference
job_<name>_alone_us and job_<name>_slowdown.

Backends (--backend): "local" runs on this machine; "dask" hands the runs to a Dask distributed
cluster (Debian: python3-distributed) so that a grid spreads over many machines:
--scheduler tcp://HOST:8786 (started with dask-scheduler, and dask-worker on each machine; the
program and the traces must be at the same paths there), or without it a LocalCluster of --jobs
workers on this machine. Both write the same sweep.csv. The CSV is rewritten after every run
(temporary file + rename): an interrupted sweep resumes where it stopped, since runs already in
DIR/sweep.csv are skipped (--retry-failed runs the failed ones again). A run that fails, or a
worker that is lost, is a row with its error: the sweep goes on. SIGINT or SIGTERM stops the
runs in progress and leaves the CSV of the runs that finished (no temporary file behind).
"""

import argparse
import concurrent.futures
import csv
import itertools
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import threading

HERE = os.path.dirname(os.path.abspath(__file__))


def parse_args():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--trace", default=None,
                        help="trace prefix (PREFIX.<rank>.et); or each run's own, from a "
                             "--grid trace=P1,P2 or a --variant NAME:trace=P,...")
    parser.add_argument("--output", "--out", dest="out", required=True,
                        help="output directory (--out: the older spelling)")
    parser.add_argument("--grid", action="append", default=[], metavar="FLAG=V1,V2,...",
                        help="a chakra-cluster flag and the values to sweep (repeatable)")
    parser.add_argument("--set", action="append", default=[], metavar="FLAG=VALUE",
                        help="a chakra-cluster flag fixed for every run (repeatable)")
    parser.add_argument("--jobs", type=int, default=os.cpu_count() or 1,
                        help="parallel runs (default: cores)")
    parser.add_argument("--binary", default=os.path.join(HERE, "..", "build", "bin",
                                                         "chakra-cluster"),
                        help="the chakra-cluster program")
    parser.add_argument("--backend", choices=["local", "dask"], default="local",
                        help="where the runs go: this machine, or a Dask distributed cluster")
    parser.add_argument("--scheduler", default=None, metavar="ADDRESS",
                        help="dask: the scheduler (tcp://host:8786); default: a LocalCluster "
                             "of --jobs workers on this machine")
    parser.add_argument("--retry-failed", action="store_true",
                        help="run again the runs whose row in DIR/sweep.csv has an error")
    parser.add_argument("--transport", default=None, metavar="M1,M2",
                        help="transport models to sweep (a grid dimension: tcp, flow, rdma, auto)")
    parser.add_argument("--variant", action="append", default=[],
                        metavar="NAME:FLAG=V,FLAG=V",
                        help="a named set of chakra-cluster flags; the variants form one grid "
                             "dimension (repeatable)")
    parser.add_argument("--job", action="append", default=[], metavar="SPEC",
                        help="a job of several sharing the cluster in every run "
                             "(chakra-cluster --job PREFIX[:key=value,...]; repeatable)")
    parser.add_argument("--mix", action="append", default=[], metavar="NAME=SPEC;SPEC",
                        help="a named set of jobs; the mixes form one grid dimension "
                             "(repeatable)")
    parser.add_argument("--plot", action="store_true", help="draw sweep.png with gnuplot")
    parser.add_argument("--x", default=None, metavar="FLAG",
                        help="grid flag on the plot's x axis (default nicBandwidth when it is "
                             "swept, else the first grid flag)")
    parser.add_argument("--y", action="append", default=[], metavar="METRIC",
                        help="metric column on the plot's y axis (default iteration_us; "
                             "repeatable: one picture each)")
    parser.add_argument("--series", default=None, metavar="FLAG",
                        help="grid flag with one line per value (the other grid flags: one "
                             "panel per combination)")
    parser.add_argument("--log-x", action="store_true", help="logarithmic x axis")
    parser.add_argument("--log-y", action="store_true", help="logarithmic y axis")
    return parser.parse_args()


def split_flag(text, what):
    if "=" not in text:
        sys.exit(f"sweep: error: {what} '{text}' is not FLAG=VALUE")
    name, value = text.split("=", 1)
    return name.strip(), value


def read_csv(path):
    with open(path, newline="") as handle:
        return list(csv.DictReader(handle))


def run_one(binary, trace, flags, tracker=None):
    """Runs one configuration; returns (metrics dict, error text or None). Never raises: a run
    that cannot even start (a missing or unusable program on a worker) is an error too.
    tracker: a RunTracker that sees the process and its directory (local backend)."""
    try:
        return run_program(binary, trace, flags, tracker)
    except Exception as error:  # noqa: BLE001 - any failure of one run is that run's error
        return None, f"{type(error).__name__}: {error}"


class RunTracker:
    """The chakra-cluster processes running now and their output directories, so that a
    signal can stop and remove them (stop_on_signals); once stopping, no run starts. Local
    backend only: a Dask worker gets no tracker (its lock could not be sent)."""

    def __init__(self):
        self.lock = threading.Lock()
        self.stopping = False
        self.processes = set()
        self.directories = set()

    def make_directory(self):
        """A new output directory, known before anything is written in it."""
        with self.lock:
            if self.stopping:
                raise RuntimeError("the sweep is stopping")
            directory = tempfile.mkdtemp(prefix="chakra-sweep-")
            self.directories.add(directory)
            return directory

    def start(self, command):
        """Starts a run's process, known before it can write anything."""
        with self.lock:
            if self.stopping:
                raise RuntimeError("the sweep is stopping")
            process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                       text=True)
            self.processes.add(process)
            return process

    def forget(self, process=None, directory=None):
        with self.lock:
            self.processes.discard(process)
            self.directories.discard(directory)

    def stop_all(self):
        """Stops every run and removes its directory; starts no more."""
        with self.lock:
            self.stopping = True
            processes, directories = list(self.processes), list(self.directories)
        for process in processes:
            process.terminate()
        for process in processes:
            try:
                process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                process.kill()
        for directory in directories:
            shutil.rmtree(directory, ignore_errors=True)


def run_program(binary, trace, flags, tracker):
    work = tracker.make_directory() if tracker else tempfile.mkdtemp(prefix="chakra-sweep-")
    try:
        return run_in(work, binary, trace, flags, tracker)
    finally:
        if tracker:
            tracker.forget(directory=work)
        shutil.rmtree(work, ignore_errors=True)


def run_in(work, binary, trace, flags, tracker):
    """One run with its outputs in the directory work; returns (metrics, error)."""
    command = [binary] + ([f"--trace={trace}"] if trace else []) + [f"--output={work}"]
    command += command_flags(flags)
    process = (tracker.start(command) if tracker else
               subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                text=True))
    with process:
        try:
            stdout, stderr = process.communicate()
        finally:
            if tracker:
                tracker.forget(process=process)
    if os.path.exists(os.path.join(work, "jobs.csv")):
        return several_jobs(read_csv(os.path.join(work, "jobs.csv"))), None
    if not os.path.exists(os.path.join(work, "ranks.csv")):
        message = (stderr or stdout).strip().splitlines()
        return None, message[-1] if message else f"exit {process.returncode}"
    ranks = read_csv(os.path.join(work, "ranks.csv"))
    collectives = read_csv(os.path.join(work, "collectives.csv"))
    fabric_path = os.path.join(work, "fabric.csv")
    fabric = read_csv(fabric_path) if os.path.exists(fabric_path) else []
    exposed = [float(r["exposed_comm_us"]) for r in ranks]
    metrics = {
        "finished": int(all(r["finished"] == "1" for r in ranks)),
        "iteration_us": max(float(r["finish_us"]) for r in ranks),
        "exposed_comm_max_us": max(exposed),
        "exposed_comm_mean_us": sum(exposed) / len(exposed),
    }
    metrics.update(time_split(ranks, metrics["iteration_us"]))
    metrics.update(training_step(stdout))
    by_type = {}
    for c in collectives:
        by_type.setdefault(c["type"], []).append((float(c["busbw_GBps"]), float(c["time_us"])))
    for kind, values in sorted(by_type.items()):
        metrics[f"busbw_{kind}_GBps"] = sum(busbw for busbw, _ in values) / len(values)
        metrics[f"time_{kind}_us"] = sum(time for _, time in values) / len(values)
    # The model that ran, as the report names it: with --transport auto it depends on the size.
    for line in stdout.splitlines():
        if line.startswith("transport model: "):
            metrics["model_run"] = line.split()[2]
            break
    # The rdma fabric's totals (PFC, ECN, drops), when the run has them.
    total = next((r for r in fabric if r.get("port") == "total"), None)
    if total is not None and "pfc_pause_sent" in total:
        metrics["fabric_pfc_pauses"] = int(total["pfc_pause_sent"])
        metrics["fabric_paused_us"] = float(total["paused_us"])
        metrics["fabric_ecn_marks"] = int(total["ecn_marks"])
        metrics["fabric_drops"] = int(total["drops"])
    return metrics, None


def several_jobs(jobs):
    """The metrics of a run of several jobs, from its jobs.csv."""
    metrics = {
        "finished": int(all(j["finished"] == "1" for j in jobs)),
        "iteration_us": max(float(j["iteration_us"]) for j in jobs),
    }
    for job in jobs:
        metrics[f"job_{job['job']}_iteration_us"] = float(job["iteration_us"])
        if job["alone_us"]:
            metrics[f"job_{job['job']}_alone_us"] = float(job["alone_us"])
        if job["slowdown"]:
            metrics[f"job_{job['job']}_slowdown"] = float(job["slowdown"])
    return metrics


# The report's time split, as ranks.csv has it per rank (columns exposed_<kind>_us).
SPLIT_KINDS = ["tp", "cp", "ep", "dp", "other"]


def time_split(ranks, iteration):
    """The report's time split: mean shares of the iteration (percent) over the ranks; the
    pipeline bubble is exposed PP send/recv plus idle time. Empty for an older ranks.csv."""
    if iteration <= 0 or not ranks or "exposed_pp_us" not in ranks[0]:
        return {}
    def mean(column):
        return 100 * sum(float(r[column]) for r in ranks) / len(ranks) / iteration
    split = {"split_compute_pct": mean("compute_us")}
    for kind in SPLIT_KINDS:
        split[f"split_{kind}_pct"] = mean(f"exposed_{kind}_us")
    split["split_bubble_pct"] = max(0.0, 100 - sum(split.values()))
    return {name: round(value, 3) for name, value in split.items()}


def training_step(stdout):
    """tokens/s and TFLOP/s per GPU and MFU from the report's "training step:" line, when the
    traces state a training step (chakra_generator --workload llm)."""
    match = re.search(r"^training step: ([0-9.]+) tokens/s per GPU, ([0-9.]+) model TFLOP/s "
                      r"per GPU, MFU ([0-9.]+)%", stdout, re.M)
    if not match:
        return {}
    return {"tokens_per_s_per_gpu": float(match.group(1)),
            "tflops_per_gpu": float(match.group(2)), "mfu_pct": float(match.group(3))}


def command_flags(flags):
    """chakra-cluster's flags for (name, value) pairs; a variant's value carries its own flags
    ("NAME:FLAG=V,FLAG=V"), so that a run has everything it needs wherever it runs."""
    command = []
    for name, value in flags:
        if name == "variant":
            command += [f"--{flag}" for flag in value.split(":", 1)[1].split(",") if flag]
        elif name == "mix":
            command += [f"--job={spec}" for spec in value.split("=", 1)[1].split(";") if spec]
        else:
            command.append(f"--{name}={value}")
    return command


def extra_grid(args):
    """The grid dimensions of --transport and --variant."""
    grid = []
    if args.transport:
        grid.append(("transport", [m for m in args.transport.split(",") if m]))
    # A variant is NAME:FLAG=V,FLAG=V; a mix NAME=SPEC;SPEC (job specs hold ':' and ',').
    variants = named_sets(args.variant, ":", "variant", "NAME:FLAG=V,FLAG=V", "variants",
                          lambda flags: flags and all("=" in f for f in flags.split(",") if f))
    if variants:
        grid.append(("variant", variants))
    mixes = named_sets(args.mix, "=", "mix", "NAME=SPEC;SPEC", "mixes",
                       lambda specs: specs.strip(";"))
    if mixes:
        grid.append(("mix", mixes))
    return grid


def named_sets(texts, separator, flag, form, plural, valid):
    """The values of a repeated --FLAG NAME<separator>REST, each a grid value: exits on one
    whose REST is not valid or whose NAME an earlier one has."""
    names = []
    for text in texts:
        name, _, rest = text.partition(separator)
        if not name or not valid(rest):
            sys.exit(f"sweep: error: --{flag} '{text}' is not {form}")
        if name in names:
            sys.exit(f"sweep: error: two {plural} named '{name}'")
        names.append(name)
    return list(texts)


# Units a flag value may carry, by kind: (unit, scale to the axis unit), longest first where
# one is a suffix of another. Bandwidths in Gbps (GB/s is bytes), sizes in bytes, times in us.
UNITS = {
    "bandwidth (Gbps)": [("Tbps", 1e3), ("Gbps", 1.0), ("Mbps", 1e-3), ("Kbps", 1e-6),
                         ("bps", 1e-9), ("Tb/s", 1e3), ("Gb/s", 1.0), ("Mb/s", 1e-3),
                         ("TB/s", 8e3), ("GB/s", 8.0), ("MB/s", 8e-3), ("T", 1e3), ("G", 1.0),
                         ("M", 1e-3)],
    "size (bytes)": [("KiB", 2 ** 10), ("MiB", 2 ** 20), ("GiB", 2 ** 30), ("TiB", 2 ** 40),
                     ("KB", 1e3), ("MB", 1e6), ("GB", 1e9), ("TB", 1e12), ("B", 1)],
    "time (us)": [("ns", 1e-3), ("us", 1.0), ("ms", 1e3), ("s", 1e6)],
}


def numeric_axis(values):
    """(kind label, [numbers]) if every value is a number, all plain or all with units of one
    kind (bandwidth, size, time); None if they are names, to be placed side by side."""
    plain = []
    for value in values:
        try:
            plain.append(float(value))
        except ValueError:
            break
    else:
        return "", plain
    for kind, units in UNITS.items():
        numbers = []
        for value in values:
            match = re.fullmatch(r"\s*([0-9]*\.?[0-9]+(?:[eE][-+]?[0-9]+)?)\s*([A-Za-z/]+)\s*",
                                 value)
            scale = dict(units).get(match.group(2)) if match else None
            if scale is None:
                break
            numbers.append(float(match.group(1)) * scale)
        else:
            return kind, numbers
    return None


def fold_flag(name):
    """A flag name as chakra-cluster matches it: case, '-' and '_' ignored, so that
    nic-bandwidth, nicBandwidth and nic_bandwidth name one flag."""
    return re.sub(r"[-_]", "", name).lower()


def grid_name(name, names):
    """The grid dimension that `name` spells (folded as chakra-cluster folds flags), or None."""
    matches = [n for n in names if fold_flag(n) == fold_flag(name)]
    return matches[0] if matches else None


def plot_choices(args, names):
    """Checks the plot's flags against the grid before anything runs; returns (x, series)."""
    chosen = {}
    default_x = grid_name("nic-bandwidth", names) or names[0]
    for option, name in (("--x", args.x or default_x), ("--series", args.series)):
        if name is None:
            chosen[option] = None
            continue
        chosen[option] = grid_name(name, names)
        if chosen[option] is None:
            sys.exit(f"sweep: error: {option} {name} is not a grid dimension "
                     f"(the grid: {', '.join(names)})")
    x_name = chosen["--x"]
    if chosen["--series"] is not None and chosen["--series"] == x_name:
        sys.exit(f"sweep: error: --series {args.series} is also the x axis")
    for metric in args.y:
        if not is_metric(metric) or metric in ("error", "model_run"):
            sys.exit(f"sweep: error: --y {metric} is not a metric column (iteration_us, "
                     f"exposed_comm_max_us, exposed_comm_mean_us, busbw_<TYPE>_GBps, "
                     f"time_<TYPE>_us, fabric_*)")
    return x_name, chosen["--series"]


def gnuplot_text(text):
    """A string for a gnuplot script (single quotes, doubled inside)."""
    return "'" + str(text).replace("'", "''") + "'"


def plot(out, rows, grid, x_name, series_name, metric, log_x, log_y):
    """Draws one metric against one grid flag (see the module's help) with gnuplot."""
    if shutil.which("gnuplot") is None:
        print("sweep: gnuplot is not installed (apt-get install gnuplot-nox): no plot",
              file=sys.stderr)
        return
    names = [name for name, _ in grid]
    values_of = dict(grid)
    if not any(row.get(metric) not in (None, "") for row in rows):
        present = sorted({key for row in rows for key, value in row.items()
                          if value not in (None, "") and is_metric(key)
                          and key not in ("error", "model_run")})
        sys.exit(f"sweep: error: no run has the metric {metric} (the CSV has: "
                 f"{', '.join(present)})")
    x_values = values_of[x_name]
    axis = numeric_axis(x_values)
    if axis is None and log_x:
        sys.exit(f"sweep: error: --log-x needs numbers on the x axis; {x_name} has names "
                 f"({', '.join(x_values)})")
    position = dict(zip(x_values, axis[1] if axis else range(len(x_values))))
    # Lines: the series flag's values, or every combination of the other flags; panels: the
    # combinations of the flags that are neither x nor series (one panel if there is none).
    if series_name is not None:
        line_flags = [series_name]
        panel_flags = [name for name in names if name not in (x_name, series_name)]
    else:
        line_flags = [name for name in names if name != x_name]
        panel_flags = []
    panels = {}
    for row in rows:
        if row.get(metric) in (None, "") or row.get(x_name) not in position:
            continue
        panel = ", ".join(f"{name}={row[name]}" for name in panel_flags)
        line = ", ".join(f"{name}={row[name]}" for name in line_flags) or "all runs"
        point = (position[row[x_name]], float(row[metric]))
        panels.setdefault(panel, {}).setdefault(line, []).append(point)
    base = "sweep" if metric == "iteration_us" else f"sweep-{metric}"
    data = os.path.join(out, f"{base}-plot.dat")
    blocks = []
    with open(data, "w") as handle:
        for panel, lines in panels.items():
            for line, points in lines.items():
                handle.write(f'"{line}"\n')
                for x, y in sorted(points):
                    handle.write(f"{x!r} {y!r}\n")
                handle.write("\n\n")
                blocks.append(panel)
    kind = axis[0] if axis else ""
    xlabel = f"{x_name} ({kind.split(' (')[1][:-1]})" if " (" in kind else x_name
    # One panel: the key beside it; panels two by two, each with its key inside.
    rows_of_panels = (len(panels) + 1) // 2
    size = "900,560" if len(panels) == 1 else f"1400,{500 * rows_of_panels}"
    script = [f"set terminal png noenhanced size {size}",
              f"set output {gnuplot_text(os.path.join(out, base + '.png'))}",
              f"set xlabel {gnuplot_text(xlabel)}", f"set ylabel {gnuplot_text(metric)}",
              "set grid", "set key outside right" if len(panels) == 1 else "set key top left"]
    if log_x:
        script.append("set logscale x")
    if log_y:
        script.append("set logscale y")
    if axis is None:
        tics = ", ".join(f"{gnuplot_text(v)} {i}" for i, v in enumerate(x_values))
        script += [f"set xtics ({tics})", f"set xrange [-0.5:{len(x_values) - 0.5}]"]
    if len(panels) > 1:
        script.append(f"set multiplot layout {rows_of_panels},2")
    for panel in panels:
        indexes = [i for i, p in enumerate(blocks) if p == panel]
        if len(panels) > 1:
            script.append(f"set title {gnuplot_text(panel)}")
        script.append("plot " + ", ".join(
            f"{gnuplot_text(data)} index {i} with linespoints title columnheader(1)"
            for i in indexes))
    if len(panels) > 1:
        script.append("unset multiplot")
    gp = os.path.join(out, f"{base}-plot.gp")
    with open(gp, "w") as handle:
        handle.write("\n".join(script) + "\n")
    subprocess.run(["gnuplot", gp], check=True)
    print(f"sweep: plot in {os.path.join(out, base + '.png')}")


METRICS = ["finished", "iteration_us", "exposed_comm_max_us", "exposed_comm_mean_us"]


def run_local(binary, trace, tasks, jobs, tracker):
    """Yields (index, metrics, error) as the runs [(index, flags)] finish on this machine."""
    with concurrent.futures.ThreadPoolExecutor(max_workers=max(1, jobs)) as pool:
        futures = {pool.submit(run_one, binary, trace, flags, tracker): index
                   for index, flags in tasks}
        for future in concurrent.futures.as_completed(futures):
            yield (futures[future],) + future.result()


def run_dask(binary, trace, tasks, jobs, scheduler):
    """Yields (index, metrics, error) as the runs finish on a Dask distributed cluster."""
    try:
        from distributed import Client, LocalCluster, as_completed
    except ImportError:
        # Debian's package serves Debian's python3; another python3 may come first in PATH.
        hint = ""
        if os.path.exists("/usr/bin/python3") and sys.executable != "/usr/bin/python3":
            found = subprocess.run(["/usr/bin/python3", "-c", "import distributed"],
                                   capture_output=True).returncode == 0
            hint = " or run the sweep with /usr/bin/python3, which has it" if found else ""
        sys.exit("sweep: error: --backend dask needs Dask distributed "
                 f"(apt-get install python3-distributed){hint}")
    cluster = None
    if scheduler:
        client = Client(scheduler)
    else:
        # One single-threaded worker process per job: each run is one chakra-cluster process.
        cluster = LocalCluster(n_workers=max(1, jobs), threads_per_worker=1,
                               dashboard_address=None)
        client = Client(cluster)
    try:
        # pure=False: two runs with the same flags are two runs, not one cached result.
        futures = {client.submit(run_one, binary, trace, flags, pure=False): index
                   for index, flags in tasks}
        for future in as_completed(list(futures)):
            try:
                metrics, error = future.result()
            except Exception as error:  # noqa: BLE001 - a lost worker (KilledWorker), ...
                metrics, error = None, f"dask: {type(error).__name__}: {error}"
            yield futures[future], metrics, error
    finally:
        client.close()
        if cluster is not None:
            cluster.close()


def is_metric(column):
    # busbw_<collective> and time_<collective> per collective type, fabric_* from the rdma
    # fabric table, the model that ran (transport auto).
    # split_* (the time split) and the training step's throughput.
    return (column in METRICS or column in ("error", "model_run") or column.startswith("busbw_")
            or column.startswith("time_") or column.startswith("fabric_")
            or column.startswith("split_") or column.startswith("job_")
            or column in ("tokens_per_s_per_gpu", "tflops_per_gpu", "mfu_pct"))


def read_previous(path, flag_columns):
    """The rows of an earlier sweep.csv, by their flag values; {} if there is none."""
    if not os.path.exists(path):
        return {}
    with open(path, newline="") as handle:
        reader = csv.DictReader(handle)
        header = reader.fieldnames or []
        rows = list(reader)
    flags = [column for column in header if not is_metric(column)]
    if sorted(flags) != sorted(flag_columns) or "error" not in header:
        sys.exit(f"sweep: error: {path} was written for the flags {', '.join(flags) or 'none'}, "
                 f"this sweep has {', '.join(flag_columns)}: use another --output or remove it")
    return {tuple(row[column] for column in flag_columns): row for row in rows}


def make_row(flag_columns, values, metrics, error):
    row = dict(zip(flag_columns, values))
    for key, value in (metrics or {}).items():
        row[key] = f"{value:.3f}" if isinstance(value, float) else str(value)
    row["error"] = error or ""
    return row


def write_csv(path, flag_columns, rows):
    """Writes the rows (grid order) with the flag columns, the metrics (the fixed ones, then the
    others sorted: the same whatever order the runs finished in) and the error."""
    extra = sorted({key for row in rows for key in row
                    if key not in flag_columns and key not in METRICS and key != "error"})
    with open(path + ".tmp", "w", newline="") as handle:
        writer = csv.DictWriter(handle, fieldnames=flag_columns + METRICS + extra + ["error"],
                                restval="")
        writer.writeheader()
        writer.writerows(rows)
    os.replace(path + ".tmp", path)


def stop_on_signals(csv_path, tracker):
    """SIGINT, SIGTERM or SIGHUP: stop the runs in progress (each removes its own temporaries),
    remove their output directories and the CSV's temporary, then end by the same signal. The
    CSV keeps the runs that finished, so the same command resumes the sweep."""
    def handler(number, frame):
        tracker.stop_all()
        try:
            os.remove(csv_path + ".tmp")
        except FileNotFoundError:
            pass
        print(f"sweep: stopped by {signal.Signals(number).name}; the finished runs are in "
              f"{csv_path}", file=sys.stderr)
        signal.signal(number, signal.SIG_DFL)
        os.kill(os.getpid(), number)

    for number in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP):
        # Python's own SIGINT handler raises KeyboardInterrupt; an ignored signal stays so.
        if signal.getsignal(number) in (signal.SIG_DFL, signal.default_int_handler):
            signal.signal(number, handler)


def main():
    args = parse_args()
    grid = [split_flag(item, "--grid") for item in args.grid]
    grid = [(name, [v for v in values.split(",") if v]) for name, values in grid]
    fixed = [split_flag(item, "--set") for item in args.set]
    # Every run's jobs: one "mix" of them, in the flags of each run (a Dask worker gets them).
    if args.job and args.mix:
        sys.exit("sweep: error: --job and --mix: give every run's jobs (--job) or a grid of "
                 "mixes (--mix), not both")
    if args.job:
        fixed.append(("mix", "jobs=" + ";".join(args.job)))
    grid += extra_grid(args)
    if not grid:
        sys.exit("sweep: error: give at least one --grid FLAG=V1,V2")
    # With a remote scheduler the program is looked for on the workers, not here.
    if not os.path.exists(args.binary) and not args.scheduler:
        sys.exit(f"sweep: error: {args.binary} not found (build first: make)")
    names = [name for name, _ in grid]
    # nicBandwidth and nic-bandwidth are one chakra-cluster flag: given twice, the later would
    # silently win in every run while the CSV showed both columns.
    seen = {}
    for name in names + [name for name, _ in fixed]:
        if fold_flag(name) in seen:
            sys.exit(f"sweep: error: {seen[fold_flag(name)]} and {name} are the same "
                     f"chakra-cluster flag: give it once")
        seen[fold_flag(name)] = name
    # Each run's trace: --trace, or a trace flag of the grid, of --set or of every variant
    # (layouts of an LLM step, say, each generated as a trace of its own).
    variant_traces = all(any(fold_flag(f.split("=", 1)[0]) == "trace"
                             for f in v.split(":", 1)[1].split(",")) for v in args.variant)
    if args.trace and "trace" in seen:
        sys.exit(f"sweep: error: --trace and {seen['trace']}: give the trace once")
    several = bool(args.job or args.mix)
    if several and (args.trace or "trace" in seen):
        sys.exit("sweep: error: --job or --mix, and a trace: give the single job as --job")
    if not several and not args.trace and "trace" not in seen and not (
            args.variant and variant_traces):
        sys.exit("sweep: error: no trace: give --trace PREFIX, --grid trace=P1,P2, "
                 "trace=P in every --variant, or --job/--mix")
    os.makedirs(args.out, exist_ok=True)
    if args.plot:
        x_name, series_name = plot_choices(args, names)
    flag_columns = names + [f"--{name}" for name, _ in fixed]
    combinations = [list(c) + [value for _, value in fixed]
                    for c in itertools.product(*[values for _, values in grid])]
    path = os.path.join(args.out, "sweep.csv")
    tracker = RunTracker()
    stop_on_signals(path, tracker)

    # Resume: runs already in sweep.csv are not run again (failed ones with --retry-failed);
    # rows of runs outside this grid are kept after the grid's.
    previous = read_previous(path, flag_columns)
    rows = {}
    for index, values in enumerate(combinations):
        row = previous.pop(tuple(values), None)
        if row is not None and not (args.retry_failed and row["error"]):
            rows[index] = row
    others = list(previous.values())
    tasks = [(index, fixed + list(zip(names, values)))
             for index, values in enumerate(combinations) if index not in rows]
    print(f"sweep: {len(combinations)} runs, {len(combinations) - len(tasks)} already in "
          f"{path}, {len(tasks)} to run ({args.backend} backend, {args.jobs} at a time)",
          file=sys.stderr)

    def ordered():
        return [rows[index] for index in sorted(rows)] + others

    if tasks:
        runner = (run_local(args.binary, args.trace, tasks, args.jobs, tracker)
                  if args.backend == "local"
                  else run_dask(args.binary, args.trace, tasks, args.jobs, args.scheduler))
        for index, metrics, error in runner:
            label = " ".join(f"{n}={v}" for n, v in zip(names, combinations[index]))
            if error:
                print(f"sweep: {label}: FAILED: {error}", file=sys.stderr)
            else:
                print(f"sweep: {label}: iteration {metrics['iteration_us']:.1f} us",
                      file=sys.stderr)
            rows[index] = make_row(flag_columns, combinations[index], metrics, error)
            write_csv(path, flag_columns, ordered())
    write_csv(path, flag_columns, ordered())
    print(f"sweep: {len(rows) + len(others)} rows in {path}")
    if args.plot:
        for metric in args.y or ["iteration_us"]:
            plot(args.out, ordered(), grid, x_name, series_name, metric, args.log_x, args.log_y)
    return 1 if any(rows[index]["error"] for index in rows) else 0


if __name__ == "__main__":
    sys.exit(main())
