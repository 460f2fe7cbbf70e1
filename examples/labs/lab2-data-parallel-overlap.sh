#!/usr/bin/env bash
# Lab 2: where a data-parallel step spends its time, and how much communication hides behind
# the backward pass.
# Usage: examples/labs/lab2-data-parallel-overlap.sh [build-dir] [output-dir]
# LAB_SMALL=1 runs a reduced grid (what CI runs).
set -euo pipefail
build=${1:-build}
out=${2:-$build/labs/lab2}
mkdir -p "$out"
if [ "${LAB_SMALL:-0}" = 1 ]; then
  layers=3; buckets="0 48MiB"; scales="1 0.5"
else
  layers=8; buckets="0 48MiB 128MiB"; scales="1 0.5 0.25"
fi
printf "%-9s %-7s %12s %12s %12s %16s\n" bucket gpu_x iteration_us compute_us comm_us exposed_comm_us
for bucket in $buckets; do
  "$build/bin/chakra_generator" --workload data-parallel --ranks 16 --layers "$layers" \
    --layer-bytes 16MiB --forward-us 300 --backward-us 600 --bucket-bytes "$bucket" \
    --output-prefix "$out/dp" 2>/dev/null
  for scale in $scales; do
    # A faster GPU: compute durations x scale; the network stays the same.
    "$build/bin/chakra-cluster" --trace="$out/dp" --hosts=2 --gpusPerHost=8 \
      --nicBandwidth=25Gbps --computeScale="$scale" --out="$out/run" > /dev/null
    IFS=, read -r rank finished finish compute comm exposed nodes error < <(sed -n 2p "$out/run/ranks.csv")
    speed=$(awk -v s="$scale" 'BEGIN { printf "%gx", 1 / s }')
    printf "%-9s %-7s %12s %12s %12s %16s\n" "$bucket" "$speed" "$finish" "$compute" "$comm" "$exposed"
  done
done
