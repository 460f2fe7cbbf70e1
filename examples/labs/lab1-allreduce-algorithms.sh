#!/usr/bin/env bash
# Lab 1: ring vs tree vs hierarchical all-reduce as the size and the rank count grow.
# Usage: examples/labs/lab1-allreduce-algorithms.sh [build-dir] [output-dir]
# LAB_SMALL=1 runs a reduced grid (what CI runs). TRANSPORT=tcp runs packet-level TCP instead
# of the default RoCEv2 fabric (rdma); the closed forms take each one's per-packet bytes.
set -euo pipefail
build=${1:-build}
out=${2:-$build/labs/lab1}
transport=${TRANSPORT:-rdma}
if [ "$transport" = tcp ]; then
  # 8948 payload bytes per 9002 on the wire (PPP 2, IPv4 20, TCP 20, timestamps 12); NVLink
  # 64948 per 65002.
  packet="9002 8948 65002 64948"
else
  # 8956 per 9038 (IPv4 20, UDP 8, BTH 12, ICRC 4 in the MTU; Ethernet framing 38 outside);
  # NVLink 64956 per 65038.
  packet="9038 8956 65038 64956"
fi
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
    rm -f "$out"/ar.*.et  # traces of an earlier run with another rank count
    "$build/bin/chakra_generator" --workload collective --collective all_reduce --ranks "$n" \
      --size "$size" --output-prefix "$out/ar" 2>/dev/null
    for algorithm in ring tree hierarchical; do
      "$build/bin/chakra-cluster" --trace="$out/ar" --hosts="$hosts" --gpusPerHost="$gpus" \
        --nicBandwidth=100Gbps --algorithm="$algorithm" --transport="$transport" \
        --out="$out/run" > /dev/null
      line=$(tail -n 1 "$out/run/collectives.csv")
      IFS=, read -r type pg seq ranks algo bytes data start end time algbw busbw trace <<< "$line"
      # Closed forms (doc/labs/lab1-allreduce-algorithms.md): per-hop latency a and payload
      # bandwidth B of the NIC path (100 Gbps, 2 x 500 ns, one full packet stored and forwarded)
      # and of NVLink (3600 Gbps, 2 x 250 ns). Tree: see doc/collectives.md.
      form=$(awk -v n="$n" -v h="$hosts" -v s="$bytes" -v algo="$algo" -v packet="$packet" 'BEGIN {
        split(packet, p, " ");  # wire and payload bytes per packet: NIC, then NVLink
        bo = 100e9 / 8 * p[2] / p[1];   ao = 2 * 500e-9 + p[1] * 8 / 100e9;
        bi = 3600e9 / 8 * p[4] / p[3];  ai = 2 * 250e-9 + p[3] * 8 / 3600e9;
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
