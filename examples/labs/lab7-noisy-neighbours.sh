#!/usr/bin/env bash
# Lab 7: noisy neighbours. A dense data-parallel job beside an MoE job on one 4:1 leaf-spine,
# placed contiguously, spread across the leaves, and at random; each job also runs alone on the
# same hosts, which gives its slowdown.
# Usage: examples/labs/lab7-noisy-neighbours.sh [build-dir] [output-dir]
# LAB_SMALL=1 runs a smaller step (the sanitizer CI's; the page's figures are the default's).
# TRANSPORTS="flow rdma" (the default) names the network models to compare.
set -euo pipefail
build=${1:-build}
out=${2:-$build/labs/lab7}
mkdir -p "$out"
if [ "${LAB_SMALL:-0}" = 1 ]; then
  layers=2; tokens=256
else
  layers=8; tokens=1024
fi
# Two 16-GPU jobs (2 hosts x 8 GPUs each) on 4 hosts: 2 hosts per leaf, 2 spines, 4:1 uplinks.
# dense: data-parallel, 32 MiB of gradients per layer all-reduced during the backward pass.
# moe: expert-parallel all-to-alls across its 16 GPUs (2 experts per rank, top-2).
"$build/bin/chakra_generator" --workload data-parallel --ranks 16 --layers "$layers" \
  --layer-bytes 32MiB --output-prefix "$out/dense" > /dev/null 2>&1
"$build/bin/chakra_generator" --workload moe --ranks 16 --experts-per-rank 2 --layers 2 \
  --tokens "$tokens" --hidden 4096 --top-k 2 --output-prefix "$out/moe" > /dev/null 2>&1
cluster=(--gpus-per-host=8 --topology=leaf-spine --hosts-per-leaf=2 --spines=2
         --oversubscription=4 --nic-bandwidth=100Gbps)
for transport in ${TRANSPORTS:-flow rdma}; do
  for placement in contiguous spread random; do
    rm -rf "$out/$transport-$placement"
    "$build/bin/chakra-cluster" --job "$out/dense:name=dense" --job "$out/moe:name=moe" \
      "${cluster[@]}" --transport="$transport" --placement="$placement" --placement-seed=1 \
      --interference --quiet --rows=0 --output="$out/$transport-$placement" \
      > "$out/$transport-$placement.txt"
  done
done
# The cluster, as the first run describes it.
first=(${TRANSPORTS:-flow rdma})
grep "^\(cluster\|topology\):" "$out/${first[0]}-contiguous.txt"
python3 - "$out" ${TRANSPORTS:-flow rdma} <<'PY'
import csv, os, sys
out = sys.argv[1]
print(f"{'transport':>9} {'placement':>10} {'job':>5} {'hosts':>5} {'iteration_us':>13} "
      f"{'alone_us':>10} {'slowdown':>8}")
for transport in sys.argv[2:]:
    for placement in ("contiguous", "spread", "random"):
        for job in csv.DictReader(open(os.path.join(out, f"{transport}-{placement}", "jobs.csv"))):
            print(f"{transport:>9} {placement:>10} {job['job']:>5} {job['hosts']:>5} "
                  f"{float(job['iteration_us']):>13.1f} {float(job['alone_us']):>10.1f} "
                  f"{float(job['slowdown']):>8.3f}")
# What each job put on the links between switches (fabric-jobs.csv: flow's switch_switch_MB,
# rdma's switch_links_MB), and its share of those bytes.
print(f"\n{'transport':>9} {'placement':>10} {'job':>5} {'switch_links_MB':>15} {'share':>6}")
for transport in sys.argv[2:]:
    for placement in ("contiguous", "spread", "random"):
        path = os.path.join(out, f"{transport}-{placement}", "fabric-jobs.csv")
        rows = [row for row in csv.DictReader(open(path)) if not row["job"].startswith("(")]
        column = "switch_switch_MB" if "switch_switch_MB" in rows[0] else "switch_links_MB"
        total = sum(float(row[column]) for row in rows)
        for row in rows:
            share = 100 * float(row[column]) / total if total > 0 else 0.0
            print(f"{transport:>9} {placement:>10} {row['job']:>5} {float(row[column]):>15.1f} "
                  f"{share:>5.1f}%")
PY
