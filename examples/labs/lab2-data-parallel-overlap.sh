#!/usr/bin/env bash
# Lab 2: where a data-parallel step spends its time, and how much communication hides behind
# the backward pass.
# Usage: examples/labs/lab2-data-parallel-overlap.sh [build-dir] [output-dir]
# LAB_SMALL=1 runs a smaller grid (the sanitizer CI's; the page's figures are the default's).
set -euo pipefail
build=${1:-build}
out=${2:-$build/labs/lab2}
here=$(cd "$(dirname "$0")/../.." && pwd)
mkdir -p "$out"
if [ "${LAB_SMALL:-0}" = 1 ]; then
  layers=2; buckets="0 48MiB"; scales="1"; small_buckets="4MiB"; latencies="20us"
  bandwidths="100Gbps"
else
  layers=8; buckets="0 48MiB 128MiB"; scales="1 0.5 0.25"; small_buckets="0 2MiB 4MiB"
  latencies="500ns 20us"; bandwidths="25Gbps,50Gbps,100Gbps,200Gbps,400Gbps"
fi
cluster=(--hosts=2 --gpus-per-host=8)

# rank0 DIR: rank 0's row of DIR/ranks.csv as "finish compute comm exposed".
rank0() {
  IFS=, read -r rank finished finish compute comm exposed nodes error < <(sed -n 2p "$1/ranks.csv")
  echo "$finish $compute $comm $exposed"
}

# 1. The step of the page: 8 layers of 16 MiB of gradients, forward 300 us and backward 600 us
# per layer; gradients all-reduced in buckets of BUCKET bytes (0: one all-reduce per layer);
# GPUs 1x, 2x, 4x as fast (compute durations x scale; the network stays the same). One trace
# per bucket size: $out/dp-<bucket>.
# (Rows go to table.txt: the cluster line, known after the first run, is printed first.)
printf "%-9s %-6s %11s %13s %12s %11s %16s\n" bucket gpu_x allreduces iteration_us compute_us \
  comm_us exposed_comm_us > "$out/table.txt"
for bucket in $buckets; do
  "$build/bin/chakra_generator" --workload data-parallel --ranks 16 --layers "$layers" \
    --layer-bytes 16MiB --forward-us 300 --backward-us 600 --bucket-bytes "$bucket" \
    --output-prefix "$out/dp-$bucket" 2>/dev/null
  for scale in $scales; do
    "$build/bin/chakra-cluster" --trace="$out/dp-$bucket" "${cluster[@]}" \
      --nic-bandwidth=25Gbps --compute-scale="$scale" --output="$out/run" > "$out/run.txt"
    [ "$bucket" != 0 ] || [ "$scale" != 1 ] || grep "^cluster:" "$out/run.txt" > "$out/cluster.txt"
    read -r finish compute comm exposed < <(rank0 "$out/run")
    calls=$(($(wc -l < "$out/run/collectives.csv") - 1))
    speed=$(awk -v s="$scale" 'BEGIN { printf "%gx", 1 / s }')
    printf "%-9s %-6s %11s %13s %12s %11s %16s\n" "$bucket" "$speed" "$calls" "$finish" \
      "$compute" "$comm" "$exposed" >> "$out/table.txt"
  done
done
cat "$out/cluster.txt" "$out/table.txt"

# 2. Small layers (1 MiB, forward 30 us, backward 60 us): buckets against the NIC latency.
echo
echo "small layers: 8 x 1 MiB, forward 30 us, backward 60 us, 25 Gbps"
printf "%-9s %-12s %11s %13s %16s\n" bucket nic_latency allreduces iteration_us exposed_comm_us
for bucket in $small_buckets; do
  "$build/bin/chakra_generator" --workload data-parallel --ranks 16 --layers 8 \
    --layer-bytes 1MiB --forward-us 30 --backward-us 60 --bucket-bytes "$bucket" \
    --output-prefix "$out/small-$bucket" 2>/dev/null
  for latency in $latencies; do
    "$build/bin/chakra-cluster" --trace="$out/small-$bucket" "${cluster[@]}" \
      --nic-bandwidth=25Gbps --nic-latency="$latency" --output="$out/run" > /dev/null
    read -r finish compute comm exposed < <(rank0 "$out/run")
    calls=$(($(wc -l < "$out/run/collectives.csv") - 1))
    printf "%-9s %-12s %11s %13s %16s\n" "$bucket" "$latency" "$calls" "$finish" "$exposed"
  done
done

# 3. Question 4: the step with one all-reduce per layer, GPUs 2x as fast, over faster NICs
# (scripts/sweep.py; its CSV and a plot of the exposed communication in $out/sweep/).
rm -rf "$out/sweep"  # a sweep resumes: an earlier run's rows would be kept
python3 "$here/scripts/sweep.py" --trace "$out/dp-0" --output "$out/sweep" \
  --binary "$build/bin/chakra-cluster" --grid nicBandwidth="$bandwidths" --set hosts=2 \
  --set gpusPerHost=8 --set computeScale=0.5 --plot --log-x --y exposed_comm_max_us \
  > /dev/null 2>&1
echo
echo "one all-reduce per layer, GPUs 2x (backward 300 us per layer)"
python3 - "$out/sweep/sweep.csv" <<'PY'
import csv, sys
print(f"{'nic':<9} {'iteration_us':>13} {'exposed_comm_us':>16} {'one_allreduce_us':>17}")
for r in csv.DictReader(open(sys.argv[1])):
    print(f"{r['nicBandwidth']:<9} {float(r['iteration_us']):>13.1f} "
          f"{float(r['exposed_comm_max_us']):>16.1f} {float(r['time_ALL_REDUCE_us']):>17.1f}")
PY
