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
    """Runs one configuration; returns (metrics dict, error text or None)."""
    with tempfile.TemporaryDirectory(prefix="chakra-sweep-") as work:
        command = [binary, f"--trace={trace}", f"--out={work}"]
        command += [f"--{name}={value}" for name, value in flags]
        result = subprocess.run(command, capture_output=True, text=True)
        if not os.path.exists(os.path.join(work, "ranks.csv")):
            message = (result.stderr or result.stdout).strip().splitlines()
            return None, message[-1] if message else f"exit {result.returncode}"
        ranks = read_csv(os.path.join(work, "ranks.csv"))
        collectives = read_csv(os.path.join(work, "collectives.csv"))
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
    return metrics, None


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


def main():
    args = parse_args()
    grid = [split_flag(item, "--grid") for item in args.grid]
    grid = [(name, [v for v in values.split(",") if v]) for name, values in grid]
    fixed = [split_flag(item, "--set") for item in args.set]
    if not grid:
        sys.exit("sweep: error: give at least one --grid FLAG=V1,V2")
    if not os.path.exists(args.binary):
        sys.exit(f"sweep: error: {args.binary} not found (build first: make)")
    os.makedirs(args.out, exist_ok=True)
    names = [name for name, _ in grid]
    combinations = list(itertools.product(*[values for _, values in grid]))
    print(f"sweep: {len(combinations)} runs, {args.jobs} at a time", file=sys.stderr)
    with concurrent.futures.ThreadPoolExecutor(max_workers=max(1, args.jobs)) as pool:
        futures = [pool.submit(run_one, args.binary, args.trace,
                               fixed + list(zip(names, combination)))
                   for combination in combinations]
        results = []
        for index, future in enumerate(futures):
            metrics, error = future.result()
            label = " ".join(f"{n}={v}" for n, v in zip(names, combinations[index]))
            if error:
                print(f"sweep: {label}: FAILED: {error}", file=sys.stderr)
            else:
                print(f"sweep: {label}: iteration {metrics['iteration_us']:.1f} us",
                      file=sys.stderr)
            results.append((metrics, error))
    metric_names = ["finished", "iteration_us", "exposed_comm_max_us", "exposed_comm_mean_us"]
    for metrics, _ in results:
        for key in (metrics or {}):
            if key not in metric_names:
                metric_names.append(key)
    rows = []
    for combination, (metrics, error) in zip(combinations, results):
        row = dict(zip(names, combination))
        row.update({f"--{name}": value for name, value in fixed})
        for key in metric_names:
            value = (metrics or {}).get(key, "")
            row[key] = f"{value:.3f}" if isinstance(value, float) else value
        row["error"] = error or ""
        rows.append(row)
    path = os.path.join(args.out, "sweep.csv")
    with open(path + ".tmp", "w", newline="") as handle:
        writer = csv.DictWriter(handle, fieldnames=names + [f"--{n}" for n, _ in fixed] +
                                metric_names + ["error"])
        writer.writeheader()
        writer.writerows(rows)
    os.replace(path + ".tmp", path)
    print(f"sweep: {len(rows)} rows in {path}")
    if args.plot:
        if args.x not in names:
            sys.exit(f"sweep: error: --x {args.x} is not a --grid flag")
        plot(args.out, rows, names, args.x)
    return 1 if any(error for _, error in results) else 0


if __name__ == "__main__":
    sys.exit(main())
