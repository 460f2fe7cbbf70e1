#!/usr/bin/env bash
# Lab 8: ECMP collisions on a fat-tree, and what packet spraying and adaptive routing change
# (and what reordering costs a RoCE NIC).
# Usage: examples/labs/lab8-ecmp-collisions.sh [build-dir] [output-dir]
# LAB_SMALL=1 all-reduces 4 MiB instead of 32 MiB (the sanitizer CI's; the page's figures are
# the default's).
set -euo pipefail
build=${1:-build}
out=${2:-$build/labs/lab8}
mkdir -p "$out"
size=32MiB
if [ "${LAB_SMALL:-0}" = 1 ]; then
  size=4MiB
fi
# One ring all-reduce of 64 GPUs, one per host, on a k=8 fat-tree (8 pods of 4 edge and 4
# aggregation switches, 16 cores; 400 Gbps everywhere: non-blocking).
"$build/bin/chakra_generator" --workload collective --ranks 64 --size "$size" \
  --output-prefix "$out/ring" > /dev/null 2>&1
run() {
  local name=$1 placement=$2 routing=$3 reordering=$4
  rm -rf "${out:?}/$name"
  "$build/bin/chakra-cluster" --job "$out/ring" --placement "$placement" --placement-seed 1 \
    --hosts 64 --gpus-per-host 1 --topology fat-tree --fat-tree-k 8 --algorithm ring \
    --transport rdma --quiet --output "$out/$name" --ns3::RdmaSwitch::Routing="$routing" \
    --ns3::RdmaNic::Reordering="$reordering" > "$out/$name.txt"
}
run in-order contiguous ecmp go-back-n
run random-ecmp random ecmp go-back-n
run random-flowlet random flowlet selective
run random-spray-gbn random spray go-back-n
run random-spray random spray selective
run random-adaptive random adaptive selective
grep "^\(cluster\|topology\):" "$out/in-order.txt"
python3 - "$out" <<'PY'
import csv, os, sys
out = sys.argv[1]
print(f"{'run':<17} {'placement':<10} {'routing':<8} {'reordering':<10} {'time_us':>9} "
      f"{'busbw_GBps':>10} {'busiest_link':>12} {'links_2plus':>11} {'naks':>8} "
      f"{'resent':>8}")
for name, placement, routing, reordering in (
        ("in-order", "contiguous", "ecmp", "go-back-n"),
        ("random-ecmp", "random", "ecmp", "go-back-n"),
        ("random-flowlet", "random", "flowlet", "selective"),
        ("random-spray-gbn", "random", "spray", "go-back-n"),
        ("random-spray", "random", "spray", "selective"),
        ("random-adaptive", "random", "adaptive", "selective")):
    d = os.path.join(out, name)
    coll = next(csv.DictReader(open(os.path.join(d, "job-1", "collectives.csv"))))
    ports = [r for r in csv.DictReader(open(os.path.join(d, "fabric.csv")))
             if r["port"] != "total" and r["link"] == "scale-out"]
    # Every GPU's NIC port sends exactly one ring flow: the unit of a link's load.
    gpu = [float(r["tx_MB"]) for r in ports if r["port"].startswith("gpu")]
    flow = sum(gpu) / len(gpu)
    loads = [float(r["tx_MB"]) / flow for r in ports]
    rdma = list(csv.DictReader(open(os.path.join(d, "rdma.csv"))))
    resent = sum(int(r["resent"]) for r in rdma)
    print(f"{name:<17} {placement:<10} {routing:<8} {reordering:<10} "
          f"{float(coll['time_us']):>9.1f} {float(coll['busbw_GBps']):>10.2f} "
          f"{max(loads):>12.2f} {sum(1 for x in loads if x >= 1.5):>11d} "
          f"{sum(int(r['naks_sent']) for r in rdma):>8d} {resent:>8d}")
PY
