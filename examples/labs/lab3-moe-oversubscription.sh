#!/usr/bin/env bash
# Lab 3: how oversubscription in a leaf-spine network slows the all-to-alls of an MoE layer.
# Usage: examples/labs/lab3-moe-oversubscription.sh [build-dir] [output-dir]
# LAB_SMALL=1 runs a reduced grid (what CI runs). The fabric is RoCEv2 with PFC and DCQCN
# (transport rdma; the NICs' congestion control is CC, default dcqcn here: the module's default
# is none, PFC alone); TRANSPORT=tcp runs packet-level TCP instead (no PFC/ECN columns then).
set -euo pipefail
build=${1:-build}
out=${2:-$build/labs/lab3}
here=$(cd "$(dirname "$0")/../.." && pwd)
transport=${TRANSPORT:-rdma}
cc=${CC:-dcqcn}
rdma_flags=()
if [ "$transport" = rdma ]; then
  rdma_flags=(--set "ns3::RdmaNic::CongestionControl=$cc")
fi
mkdir -p "$out"
if [ "${LAB_SMALL:-0}" = 1 ]; then
  layers=1; tokens=256; grid="1,4"
else
  layers=2; tokens=1024; grid="1,2,4,8"
fi
# 16 ranks on 4 hosts x 4 GPUs, one expert-parallel group over all of them: the all-to-alls
# cross the network. Two hosts per leaf, 2 spines: half of every all-to-all crosses the spines.
"$build/bin/chakra_generator" --workload moe --ranks 16 --experts-per-rank 2 --layers "$layers" \
  --tokens "$tokens" --hidden 4096 --top-k 2 --output-prefix "$out/moe" 2>/dev/null
python3 "$here/scripts/sweep.py" --trace "$out/moe" --out "$out/sweep" \
  --binary "$build/bin/chakra-cluster" --grid oversubscription="$grid" \
  --set hosts=4 --set gpusPerHost=4 --set topology=leaf-spine --set hostsPerLeaf=2 \
  --set spines=2 --set nicBandwidth=100Gbps --set transport="$transport" "${rdma_flags[@]}" \
  2>/dev/null
python3 - "$out/sweep/sweep.csv" <<'PY'
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1])))
fabric = "fabric_pfc_pauses" in rows[0]
print(f"{'oversubscription':>16} {'iteration_us':>14} {'exposed_comm_us':>16} {'all-to-all busbw GB/s':>22}"
      + (f" {'pfc_pauses':>10} {'paused_us':>10} {'ecn_marks':>10} {'drops':>6}" if fabric else ""))
for r in rows:
    print(f"{r['oversubscription']:>16} {float(r['iteration_us']):>14.1f} "
          f"{float(r['exposed_comm_max_us']):>16.1f} {float(r['busbw_ALL_TO_ALL_GBps']):>22.2f}"
          + (f" {int(r['fabric_pfc_pauses']):>10} {float(r['fabric_paused_us']):>10.1f} "
             f"{int(r['fabric_ecn_marks']):>10} {int(r['fabric_drops']):>6}" if fabric else ""))
PY
