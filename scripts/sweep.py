#!/usr/bin/env python3
"""Parameter sweep: run chakra-cluster over a grid of flags, in parallel, one CSV row per run.

  scripts/sweep.py --trace PREFIX --out DIR \
      --grid nicBandwidth=100Gbps,200Gbps,400Gbps --grid topology=single-switch,leaf-spine \
      [--grid gpusPerHost=4,8] [--grid algorithm=ring,hierarchical] [--set ctrlDeps=false] \
      [--jobs N] [--plot]

Every combination of the --grid values is one run of build/bin/chakra-cluster with those flags
(and the --set ones). DIR/sweep.csv gets one row per run: the flags, the iteration time, the
largest and mean exposed communication over the ranks, and the mean bus bandwidth of each
collective type. Runs go in parallel (default: the number of cores); the CSV is in grid order,
so the same flags give the same file. --plot draws DIR/sweep.png with gnuplot: iteration time
against NIC bandwidth, one line per value of the other grid flags.

Topologies: --grid topology=leaf-spine,rail-optimized sweeps kinds that share their flags;
--variant NAME:FLAG=V,FLAG=V,... (repeatable) makes a 'variant' column whose runs each set
their own flags, for kinds with parameters of their own, e.g.
  --variant rail:topology=rail-optimized,spines=4 --variant tree:topology=fat-tree,fatTreeK=8
--grid topologyFile=a.yml,b.yml sweeps topology files. --transport tcp,flow sweeps the
transport models (the same as --grid transport=tcp,flow); column model_run says which model
ran (with --transport auto it depends on the cluster's size).

Backends (--backend): "local" runs on this machine; "dask" hands the runs to a Dask distributed
cluster (Debian: python3-distributed) so that a grid spreads over many machines:
--scheduler tcp://HOST:8786 (started with dask-scheduler, and dask-worker on each machine; the
program and the traces must be at the same paths there), or without it a LocalCluster of --jobs
workers on this machine. Both write the same sweep.csv. The CSV is rewritten after every run
(temporary file + rename): an interrupted sweep resumes where it stopped, since runs already in
DIR/sweep.csv are skipped (--retry-failed runs the failed ones again). A run that fails, or a
worker that is lost, is a row with its error: the sweep goes on.
"""

import argparse
import concurrent.futures
import csv
import itertools
import os
import re
import shutil
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))


def parse_args():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--trace", required=True, help="trace prefix (PREFIX.<rank>.et)")
    parser.add_argument("--out", required=True, help="output directory")
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
    parser.add_argument("--plot", action="store_true", help="draw sweep.png with gnuplot")
    parser.add_argument("--x", default="nicBandwidth",
                        help="grid flag on the plot's x axis (default nicBandwidth)")
    return parser.parse_args()


def split_flag(text, what):
    if "=" not in text:
        sys.exit(f"sweep: error: {what} '{text}' is not FLAG=VALUE")
    name, value = text.split("=", 1)
    return name.strip(), value


def read_csv(path):
    with open(path, newline="") as handle:
        return list(csv.DictReader(handle))


def run_one(binary, trace, flags):
    """Runs one configuration; returns (metrics dict, error text or None). Never raises: a run
    that cannot even start (a missing or unusable program on a worker) is an error too."""
    try:
        return run_program(binary, trace, flags)
    except Exception as error:  # noqa: BLE001 - any failure of one run is that run's error
        return None, f"{type(error).__name__}: {error}"


def run_program(binary, trace, flags):
    with tempfile.TemporaryDirectory(prefix="chakra-sweep-") as work:
        command = [binary, f"--trace={trace}", f"--out={work}"]
        command += command_flags(flags)
        result = subprocess.run(command, capture_output=True, text=True)
        if not os.path.exists(os.path.join(work, "ranks.csv")):
            message = (result.stderr or result.stdout).strip().splitlines()
            return None, message[-1] if message else f"exit {result.returncode}"
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
    by_type = {}
    for c in collectives:
        by_type.setdefault(c["type"], []).append(float(c["busbw_GBps"]))
    for kind, values in sorted(by_type.items()):
        metrics[f"busbw_{kind}_GBps"] = sum(values) / len(values)
    # The model that ran, as the report names it: with --transport auto it depends on the size.
    for line in result.stdout.splitlines():
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


def command_flags(flags):
    """chakra-cluster's flags for (name, value) pairs; a variant's value carries its own flags
    ("NAME:FLAG=V,FLAG=V"), so that a run has everything it needs wherever it runs."""
    command = []
    for name, value in flags:
        if name == "variant":
            command += [f"--{flag}" for flag in value.split(":", 1)[1].split(",") if flag]
        else:
            command.append(f"--{name}={value}")
    return command


def extra_grid(args):
    """The grid dimensions of --transport and --variant."""
    grid = []
    if args.transport:
        grid.append(("transport", [m for m in args.transport.split(",") if m]))
    variants = []
    for text in args.variant:
        name, _, flags = text.partition(":")
        if not name or not flags or any("=" not in f for f in flags.split(",") if f):
            sys.exit(f"sweep: error: --variant '{text}' is not NAME:FLAG=V,FLAG=V")
        if any(v.split(":", 1)[0] == name for v in variants):
            sys.exit(f"sweep: error: two variants named '{name}'")
        variants.append(text)
    if variants:
        grid.append(("variant", variants))
    return grid


def bandwidth_gbps(text):
    match = re.fullmatch(r"([0-9.]+)\s*([KMGT]?)(bps|b/s)?", text.strip())
    if not match:
        return None
    scale = {"": 1e-9, "K": 1e-6, "M": 1e-3, "G": 1.0, "T": 1e3}[match.group(2)]
    return float(match.group(1)) * scale


def plot(out, rows, grid_names, x_name):
    if shutil.which("gnuplot") is None:
        print("sweep: gnuplot is not installed (apt-get install gnuplot-nox): no plot",
              file=sys.stderr)
        return
    others = [name for name in grid_names if name != x_name]
    series = {}
    for row in rows:
        if row.get("iteration_us") in (None, ""):
            continue
        x = bandwidth_gbps(row[x_name]) if x_name == "nicBandwidth" else float(row[x_name])
        key = ", ".join(f"{name}={row[name]}" for name in others) or "all runs"
        series.setdefault(key, []).append((x, float(row["iteration_us"]) / 1e3))
    data = os.path.join(out, "sweep-plot.dat")
    with open(data, "w") as handle:
        for key, points in series.items():
            handle.write(f'"{key}"\n')
            for x, y in sorted(points):
                handle.write(f"{x} {y}\n")
            handle.write("\n\n")
    plots = ", ".join(f"'{data}' index {i} with linespoints title columnheader(1)"
                      for i in range(len(series)))
    xlabel = "NIC bandwidth (Gbps)" if x_name == "nicBandwidth" else x_name
    script = (f"set terminal png size 900,560\nset output '{os.path.join(out, 'sweep.png')}'\n"
              f"set xlabel '{xlabel}'\nset ylabel 'iteration time (ms)'\nset grid\n"
              f"set key outside right\nplot {plots}\n")
    subprocess.run(["gnuplot"], input=script, text=True, check=True)
    print(f"sweep: plot in {os.path.join(out, 'sweep.png')}")


METRICS = ["finished", "iteration_us", "exposed_comm_max_us", "exposed_comm_mean_us"]


def run_local(binary, trace, tasks, jobs):
    """Yields (index, metrics, error) as the runs [(index, flags)] finish on this machine."""
    with concurrent.futures.ThreadPoolExecutor(max_workers=max(1, jobs)) as pool:
        futures = {pool.submit(run_one, binary, trace, flags): index for index, flags in tasks}
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
    # busbw_<collective> per collective type, fabric_* from the rdma fabric table, the model
    # that ran (transport auto).
    return (column in METRICS or column in ("error", "model_run") or column.startswith("busbw_")
            or column.startswith("fabric_"))


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
                 f"this sweep has {', '.join(flag_columns)}: use another --out or remove it")
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


def main():
    args = parse_args()
    grid = [split_flag(item, "--grid") for item in args.grid]
    grid = [(name, [v for v in values.split(",") if v]) for name, values in grid]
    fixed = [split_flag(item, "--set") for item in args.set]
    grid += extra_grid(args)
    if not grid:
        sys.exit("sweep: error: give at least one --grid FLAG=V1,V2")
    # With a remote scheduler the program is looked for on the workers, not here.
    if not os.path.exists(args.binary) and not args.scheduler:
        sys.exit(f"sweep: error: {args.binary} not found (build first: make)")
    os.makedirs(args.out, exist_ok=True)
    names = [name for name, _ in grid]
    flag_columns = names + [f"--{name}" for name, _ in fixed]
    combinations = [list(c) + [value for _, value in fixed]
                    for c in itertools.product(*[values for _, values in grid])]
    path = os.path.join(args.out, "sweep.csv")

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
        runner = (run_local(args.binary, args.trace, tasks, args.jobs) if args.backend == "local"
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
        if args.x not in names:
            sys.exit(f"sweep: error: --x {args.x} is not a --grid flag")
        plot(args.out, ordered(), names, args.x)
    return 1 if any(rows[index]["error"] for index in rows) else 0


if __name__ == "__main__":
    sys.exit(main())
