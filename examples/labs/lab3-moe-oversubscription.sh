#!/usr/bin/env bash
# Lab 3: how oversubscription in a leaf-spine network slows the all-to-alls of an MoE layer.
# Usage: examples/labs/lab3-moe-oversubscription.sh [build-dir] [output-dir]
# LAB_SMALL=1 runs a smaller grid (the sanitizer CI's; the page's figures are the default's).
# The fabric is RoCEv2 with PFC and DCQCN
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
  layers=1; tokens=128; grid="1,4"
else
  layers=2; tokens=1024; grid="1,2,4,8"
fi
# 16 ranks on 4 hosts x 4 GPUs, one expert-parallel group over all of them: the all-to-alls
# cross the network. Two hosts per leaf, 2 spines: half of every all-to-all crosses the spines.
"$build/bin/chakra_generator" --workload moe --ranks 16 --experts-per-rank 2 --layers "$layers" \
  --tokens "$tokens" --hidden 4096 --top-k 2 --output-prefix "$out/moe" 2>/dev/null
# The cluster and its fabric as chakra-cluster builds them (oversubscription 1).
"$build/bin/chakra-cluster" --trace="$out/moe" --hosts=4 --gpus-per-host=4 --topology=leaf-spine \
  --hosts-per-leaf=2 --spines=2 --nic-bandwidth=100Gbps --transport="$transport" --stop-time=1e-9 \
  --rows=0 2>/dev/null | grep "^\(cluster\|topology\):" || true
if [ "$transport" = rdma ]; then
  # The rdma model's parameters this lab talks about, as the program has them.
  { "$build/bin/chakra-cluster" --PrintAttributes=ns3::RdmaSwitch
    "$build/bin/chakra-cluster" --PrintAttributes=ns3::DcqcnRateControl; } > "$out/attributes.txt" 2>&1
  python3 - "$out/attributes.txt" "$cc" <<'PY'
import re, sys
value = dict(re.findall(r"--ns3::\w+::(\w+)=\[([^]]*)\]", open(sys.argv[1]).read()))
print(f"switch: ECN Kmin {int(value['EcnKmin']) / 1e3:g} KB, Kmax {int(value['EcnKmax']) / 1e3:g} KB")
print(f"DCQCN ({sys.argv[2]} in this run): additive increase "
      f"{int(value['AdditiveIncrease'][:-3]) / 1e6:g} Mbps per "
      f"{int(value['RateIncreasePeriod'].strip('+ns')) / 1e3:g} us after "
      f"{value['FastRecoverySteps']} steps of fast recovery")
PY
fi
rm -rf "$out/sweep"  # a sweep resumes: an earlier run's rows would be kept
python3 "$here/scripts/sweep.py" --trace "$out/moe" --output "$out/sweep" \
  --binary "$build/bin/chakra-cluster" --grid oversubscription="$grid" \
  --set hosts=4 --set gpusPerHost=4 --set topology=leaf-spine --set hostsPerLeaf=2 \
  --set spines=2 --set nicBandwidth=100Gbps --set transport="$transport" "${rdma_flags[@]}" \
  > /dev/null 2>&1
# Two lower bounds of one all-to-all (S = tokens x top-k x hidden x 2 bytes per rank): the NIC,
# which sends the share for the other hosts (12 of 16), and a leaf's uplinks, which carry the
# share of its 8 GPUs for the other leaf (8 of 16) at 8 x 100 Gbps / oversubscription.
python3 - "$out/sweep/sweep.csv" "$((tokens * 2 * 4096 * 2))" <<'PY'
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1])))
size = int(sys.argv[2])
nic_bound = size * 12 / 16 * 8 / 100e9 * 1e6
fabric = "fabric_pfc_pauses" in rows[0]
print(f"{'oversubscription':>16} {'iteration_us':>14} {'exposed_comm_us':>16} "
      f"{'all-to-all_us':>14} {'nic_bound_us':>13} {'uplink_bound_us':>16} {'busbw_GB/s':>11}"
      + (f" {'pfc_pauses':>10} {'paused_us':>10} {'ecn_marks':>10} {'drops':>6}" if fabric else ""))
for r in rows:
    uplink_bound = 8 * size * 8 / 16 * 8 / (8 * 100e9 / float(r["oversubscription"])) * 1e6
    print(f"{r['oversubscription']:>16} {float(r['iteration_us']):>14.1f} "
          f"{float(r['exposed_comm_max_us']):>16.1f} {float(r['time_ALL_TO_ALL_us']):>14.1f} "
          f"{nic_bound:>13.1f} {uplink_bound:>16.1f} {float(r['busbw_ALL_TO_ALL_GBps']):>11.2f}"
          + (f" {int(r['fabric_pfc_pauses']):>10} {float(r['fabric_paused_us']):>10.1f} "
             f"{int(r['fabric_ecn_marks']):>10} {int(r['fabric_drops']):>6}" if fabric else ""))
PY
