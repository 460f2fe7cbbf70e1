#!/usr/bin/env bash
# Lab 4: rail-optimized against leaf-spine for an all-to-all heavy (MoE) step and a
# data-parallel step.
# Usage: examples/labs/lab4-rail-vs-leaf-spine.sh [build-dir] [output-dir]
# LAB_SMALL=1 runs 16 GPUs (what CI runs) instead of 64; TRANSPORT=tcp runs packet-level TCP
# instead of the flow model (slower; the same ranking).
set -euo pipefail
build=${1:-build}
out=${2:-$build/labs/lab4}
here=$(cd "$(dirname "$0")/../.." && pwd)
transport=${TRANSPORT:-flow}
mkdir -p "$out"
if [ "${LAB_SMALL:-0}" = 1 ]; then
  hosts=4; gpus=4; tokens=512
else
  hosts=8; gpus=8; tokens=2048
fi
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
  python3 "$here/scripts/sweep.py" --trace "$out/$workload" --out "$out/$workload-sweep" \
    --binary "$build/bin/chakra-cluster" "${variants[@]}" --transport "$transport" \
    --set hosts="$hosts" --set gpusPerHost="$gpus" --set nicBandwidth=100Gbps \
    --jobs 2 2>/dev/null
done
# The bisection bandwidth and diameter of each design.
for topology in "leaf-spine --hostsPerLeaf=1 --spines=4 --oversubscription=2" \
                "rail-optimized --spines=4 --oversubscription=2" "rail-optimized --spines=0"; do
  # shellcheck disable=SC2086
  "$build/bin/chakra-cluster" --trace="$out/dp" --hosts="$hosts" --gpusPerHost="$gpus" \
    --nicBandwidth=100Gbps --transport="$transport" --topology=$topology --stopTime=1e-9 \
    --rows=0 2>/dev/null | grep "^topology:" || true
done
python3 - "$out" <<'PY'
import csv, os, sys
out = sys.argv[1]
print(f"{'workload':>8} {'topology':>15} {'iteration_us':>13} {'exposed_comm_us':>16} "
      f"{'busbw_GB/s':>11}")
for workload, column in (("moe", "busbw_ALL_TO_ALL_GBps"), ("dp", "busbw_ALL_REDUCE_GBps")):
    for row in csv.DictReader(open(os.path.join(out, f"{workload}-sweep", "sweep.csv"))):
        name = row["variant"].split(":", 1)[0]
        print(f"{workload:>8} {name:>15} {float(row['iteration_us']):>13.1f} "
              f"{float(row['exposed_comm_max_us']):>16.1f} {float(row[column]):>11.2f}")
PY
