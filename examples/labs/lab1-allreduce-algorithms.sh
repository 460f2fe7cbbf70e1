#!/usr/bin/env bash
# Lab 1: ring vs tree vs hierarchical all-reduce as the size and the rank count grow.
# Usage: examples/labs/lab1-allreduce-algorithms.sh [build-dir] [output-dir]
# LAB_SMALL=1 runs a reduced grid (what CI runs).
set -euo pipefail
build=${1:-build}
out=${2:-$build/labs/lab1}
mkdir -p "$out"
if [ "${LAB_SMALL:-0}" = 1 ]; then
  sizes="64KiB 4MiB"; layouts="2x4"
else
  sizes="64KiB 1MiB 16MiB 64MiB"; layouts="2x4 4x4"
fi
# Hosts of 4 GPUs on NVLink (3600 Gbps), one 100 Gbps NIC per GPU, one switch.
printf "%-6s %-8s %-13s %12s %12s %14s\n" ranks size algorithm time_us busbw_GB/s closed_form_us
for layout in $layouts; do
  hosts=${layout%x*}; gpus=${layout#*x}; n=$((hosts * gpus))
  for size in $sizes; do
    "$build/bin/chakra_generator" --workload collective --collective all_reduce --ranks "$n" \
      --size "$size" --output-prefix "$out/ar" 2>/dev/null
    for algorithm in ring tree hierarchical; do
      "$build/bin/chakra-cluster" --trace="$out/ar" --hosts="$hosts" --gpusPerHost="$gpus" \
        --nicBandwidth=100Gbps --algorithm="$algorithm" --out="$out/run" > /dev/null
      line=$(tail -n 1 "$out/run/collectives.csv")
      IFS=, read -r type pg seq ranks algo bytes data start end time algbw busbw trace <<< "$line"
      # Closed forms (doc/labs/lab1-allreduce-algorithms.md): per-hop latency a and payload
      # bandwidth B of the NIC path (100 Gbps, 2 x 500 ns, 9002-byte packets) and of NVLink
      # (3600 Gbps, 2 x 250 ns, 65002-byte packets). Tree: see doc/collectives.md.
      form=$(awk -v n="$n" -v h="$hosts" -v s="$bytes" -v algo="$algo" 'BEGIN {
        bo = 100e9 / 8 * 8948 / 9002;     ao = 2 * 500e-9 + 9002 * 8 / 100e9;
        bi = 3600e9 / 8 * 64948 / 65002;  ai = 2 * 250e-9 + 65002 * 8 / 3600e9;
        g = n / h;
        if (algo == "ring")          # the slowest link sets the pace; h of the n hops are NICs
          t = 2 * (n - 1) / n * s / bo + 2 * (n - 1) * (h / n * ao + (1 - h / n) * ai);
        else if (algo == "hierarchical")
          t = 2 * (g - 1) * (ai + s / (g * bi)) + 2 * (h - 1) * (ao + s / (g * h * bo));
        else { print "-"; exit }
        printf "%.1f", t * 1e6 }')
      printf "%-6s %-8s %-13s %12s %12s %14s\n" "$n" "$size" "$algo" "$time" "$busbw" "$form"
    done
  done
done
