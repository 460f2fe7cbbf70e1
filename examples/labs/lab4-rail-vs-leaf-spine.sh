#!/usr/bin/env bash
# Lab 4: rail-optimized against leaf-spine for an all-to-all heavy (MoE) step and a
# data-parallel step.
# Usage: examples/labs/lab4-rail-vs-leaf-spine.sh [build-dir] [output-dir]
# TRANSPORT=tcp (or rdma) runs a packet-level model instead of the flow model (much slower at 64
# GPUs: use it with HOSTS=4 GPUS=4, 16 GPUs, and compare with the flow model at the same size).
# LAB_SMALL=1 runs 16 GPUs (the sanitizer CI's; the page's figures are the default's, 64 GPUs).
set -euo pipefail
build=${1:-build}
out=${2:-$build/labs/lab4}
here=$(cd "$(dirname "$0")/../.." && pwd)
transport=${TRANSPORT:-flow}
mkdir -p "$out"
if [ "${LAB_SMALL:-0}" = 1 ]; then
  hosts=${HOSTS:-4}; gpus=${GPUS:-4}
else
  hosts=${HOSTS:-8}; gpus=${GPUS:-8}
fi
# 32 tokens per rank and layer: 4 all-to-alls of 32 MiB per rank at 64 GPUs, 8 MiB at 16.
tokens=$((32 * hosts * gpus))
ranks=$((hosts * gpus))
# The same switches and uplink capacity for the two designs: one switch per host's NICs
# (leaf-spine, hostsPerLeaf=1) or one switch per GPU index (rail), 4 spines, uplinks 2:1
# oversubscribed; and rail-only: the rail switches alone, no spine.
variants=(
  --variant "leaf-spine:topology=leaf-spine,hostsPerLeaf=1,spines=4,oversubscription=2"
  --variant "rail-optimized:topology=rail-optimized,spines=4,oversubscription=2"
  --variant "rail-only:topology=rail-optimized,spines=0"
)
rm -f "$out"/moe.*.et  # traces of an earlier run of the other size
"$build/bin/chakra_generator" --workload moe --ranks "$ranks" --experts-per-rank 1 --layers 1 \
  --tokens "$tokens" --hidden 4096 --top-k 2 --output-prefix "$out/moe" 2>/dev/null
rm -f "$out"/dp.*.et
"$build/bin/chakra_generator" --workload data-parallel --ranks "$ranks" --layers 4 \
  --layer-bytes 32MiB --output-prefix "$out/dp" 2>/dev/null
for workload in moe dp; do
  rm -rf "$out/$workload-sweep"  # a sweep resumes: an earlier run's rows would be kept
  python3 "$here/scripts/sweep.py" --trace "$out/$workload" --output "$out/$workload-sweep" \
    --binary "$build/bin/chakra-cluster" "${variants[@]}" --transport "$transport" \
    --set hosts="$hosts" --set gpusPerHost="$gpus" --set nicBandwidth=100Gbps \
    --jobs 2 > /dev/null 2>&1
done
# The cluster (from the first design), the bisection bandwidth and diameter of each design.
lines="^\(cluster\|topology\):"
for topology in "leaf-spine --hosts-per-leaf=1 --spines=4 --oversubscription=2" \
                "rail-optimized --spines=4 --oversubscription=2" "rail-optimized --spines=0"; do
  # shellcheck disable=SC2086
  "$build/bin/chakra-cluster" --trace="$out/dp" --hosts="$hosts" --gpus-per-host="$gpus" \
    --nic-bandwidth=100Gbps --transport="$transport" --topology=$topology --stop-time=1e-9 \
    --rows=0 2>/dev/null | grep "$lines" || true
  lines="^topology:"
done
python3 - "$out" <<'PY'
import csv, os, sys
out = sys.argv[1]
print(f"{'workload':>8} {'topology':>15} {'iteration_us':>13} {'exposed_comm_us':>16} "
      f"{'collective_us':>14} {'busbw_GB/s':>11}")
for workload, kind in (("moe", "ALL_TO_ALL"), ("dp", "ALL_REDUCE")):
    for row in csv.DictReader(open(os.path.join(out, f"{workload}-sweep", "sweep.csv"))):
        name = row["variant"].split(":", 1)[0]
        print(f"{workload:>8} {name:>15} {float(row['iteration_us']):>13.1f} "
              f"{float(row['exposed_comm_max_us']):>16.1f} {float(row[f'time_{kind}_us']):>14.1f} "
              f"{float(row[f'busbw_{kind}_GBps']):>11.2f}")
PY
