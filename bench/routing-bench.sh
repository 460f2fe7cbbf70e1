#!/usr/bin/env bash
# Routing modes and congestion controls on a collective where ECMP collides (issue 29): a
# 64 MiB ring all-reduce of 64 GPUs (one per host, 400 Gbps NICs) on a k=8 fat-tree, the
# ranks placed on the hosts at random (--placement random, seed 1) so that ring neighbours sit
# in different pods and their flows cross the aggregation and core layers. Prints one
# row per case: the all-reduce's time and bus bandwidth, the busiest link's load in ring flows
# (its bytes over one ring flow's: ECMP puts whole flows on a link, so 2 or more is a
# collision), links carrying 2 or more flows' worth, and the packets sent again.
#   bench/routing-bench.sh [build-dir] [--cc none,hpcc,...]
# Each case is one chakra-cluster run (2-7 s here).
set -euo pipefail
build=${1:-build}
ccs="none"
if [ "${2:-}" = "--cc" ]; then
  ccs=$3
fi
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
"$build/bin/chakra_generator" --workload collective --ranks 64 --size 64MiB \
  --output-prefix "$out/ring" > /dev/null 2>&1
printf "%-6s %-9s %-10s %-9s %12s %11s %17s %16s %8s %7s\n" transport routing reordering cc \
  time_us busbw_GB/s busiest_link_flows links_2plus_flows resent wall_s
run() {
  local transport=$1 routing=$2 reordering=$3 cc=$4
  local dir="$out/$transport-$routing-$reordering-$cc"
  local start end
  start=$(date +%s.%N)
  "$build/bin/chakra-cluster" --job "$out/ring" --placement random --hosts 64 --gpus-per-host 1 \
    --topology fat-tree --fat-tree-k 8 --algorithm ring --transport "$transport" --quiet \
    --output "$dir" --ns3::RdmaSwitch::Routing="$routing" \
    --ns3::RdmaNic::Reordering="$reordering" --ns3::RdmaNic::CongestionControl="$cc" \
    > "$dir.txt"
  end=$(date +%s.%N)
  python3 - "$dir" "$transport" "$routing" "$reordering" "$cc" "$start" "$end" <<'PY'
import csv, sys
d, transport, routing, reordering, cc, start, end = sys.argv[1:]
import os
cpath = f"{d}/job-1/collectives.csv"  # the one job's own report (--job)
row = next(csv.DictReader(open(cpath)))
busiest, crowded = "-", "-"
if os.path.exists(f"{d}/fabric.csv"):  # the packet model's port counters (not the flow model)
    fabric = list(csv.DictReader(open(f"{d}/fabric.csv")))
    ports = [r for r in fabric if r["port"] != "total" and r["link"] == "scale-out"]
    # A GPU's NIC port sends exactly its ring flow: the unit.
    gpu = [float(r["tx_MB"]) for r in ports if r["port"].startswith("gpu")]
    flow = sum(gpu) / len(gpu)
    loads = [float(r["tx_MB"]) / flow for r in ports]
    busiest, crowded = f"{max(loads):.2f}", str(sum(1 for x in loads if x >= 1.5))
resent = 0
rpath = f"{d}/rdma.csv"
if os.path.exists(rpath):
    resent = sum(int(r["resent"]) for r in csv.DictReader(open(rpath)))
print(f"{transport:<6} {routing:<9} {reordering:<10} {cc:<9} {float(row['time_us']):12.1f} "
      f"{float(row['busbw_GBps']):11.2f} {busiest:>17} {crowded:>16} "
      f"{resent:8d} {float(end) - float(start):7.1f}")
PY
}
run flow ecmp go-back-n none
run flow spray go-back-n none # the flow model splits the flow evenly (its reordering: none)
for cc in ${ccs//,/ }; do
  run rdma ecmp go-back-n "$cc"
  run rdma flowlet selective "$cc"
  if [ "$cc" != hpcc ]; then # HPCC's telemetry needs one path per flow (refused otherwise)
    run rdma spray go-back-n "$cc"
    run rdma spray selective "$cc"
    run rdma adaptive selective "$cc"
  fi
done
