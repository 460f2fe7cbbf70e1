#!/usr/bin/env bash
# Lab 1: ring vs tree vs hierarchical all-reduce as the size and the rank count grow, and the
# textbook algorithms against NCCL's schedule (nccl).
# Usage: examples/labs/lab1-allreduce-algorithms.sh [build-dir] [output-dir]
# Variables: NIC_BANDWIDTH (default 100Gbps; Mbps, Gbps or Tbps), the NICs' bandwidth, used by
# the runs and the closed forms alike; LAYOUTS (default "2x4 4x4": hosts x GPUs per host) and
# SIZES (default "64KiB 1MiB 16MiB") to explore; TRANSPORT=tcp runs packet-level TCP instead of
# the default RoCEv2 fabric (rdma), the closed forms then take TCP's per-packet bytes.
# LAB_SMALL=1 runs a smaller grid (the sanitizer CI's; the page's figures are the default's).
set -euo pipefail
build=${1:-build}
out=${2:-$build/labs/lab1}
transport=${TRANSPORT:-rdma}
nic=${NIC_BANDWIDTH:-100Gbps}
# The NIC bandwidth in Gbps, for the closed forms.
nic_gbps=$(awk -v b="$nic" 'BEGIN {
  if (b ~ /^[0-9.]+Tbps$/) print b * 1000; else if (b ~ /^[0-9.]+Gbps$/) print b + 0;
  else if (b ~ /^[0-9.]+Mbps$/) print b / 1000; else print "" }')
if [ -z "$nic_gbps" ]; then
  echo "lab1: NIC_BANDWIDTH=$nic: give Mbps, Gbps or Tbps (e.g. 400Gbps)" >&2
  exit 2
fi
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
  sizes=${SIZES:-"64KiB 1MiB"}; layouts=${LAYOUTS:-"2x4"}
else
  sizes=${SIZES:-"64KiB 1MiB 16MiB"}; layouts=${LAYOUTS:-"2x4 4x4"}
fi
# Hosts of GPUs on NVLink (3600 Gbps), one NIC per GPU, one switch.
for layout in $layouts; do
  hosts=${layout%x*}; gpus=${layout#*x}; n=$((hosts * gpus))
  first=1
  for size in $sizes; do
    rm -f "$out"/ar.*.et  # traces of an earlier run with another rank count
    "$build/bin/chakra_generator" --workload collective --collective all_reduce --ranks "$n" \
      --size "$size" --output-prefix "$out/ar" 2>/dev/null
    # nccl: NCCL's own schedule (doc/collectives.md); its tuning model takes the cluster's links.
    for algorithm in ring tree hierarchical nccl; do
      "$build/bin/chakra-cluster" --trace="$out/ar" --hosts="$hosts" --gpus-per-host="$gpus" \
        --nic-bandwidth="$nic" --algorithm="$algorithm" --transport="$transport" \
        --output="$out/run" > "$out/run.txt"
      if [ "$first" = 1 ]; then
        # The cluster as chakra-cluster built it, then the table's header.
        grep "^cluster:" "$out/run.txt"
        printf "%-6s %-8s %-13s %12s %12s %14s\n" ranks size algorithm time_us busbw_GB/s \
          closed_form_us
        first=0
      fi
      line=$(tail -n 1 "$out/run/collectives.csv")
      IFS=, read -r type pg seq ranks algo bytes data start end time algbw busbw trace <<< "$line"
      # Closed forms (doc/labs/lab1-allreduce-algorithms.md): per-hop latency a and payload
      # bandwidth B of the NIC path (NIC_BANDWIDTH, 2 x 500 ns, one full packet stored and
      # forwarded) and of NVLink (3600 Gbps, 2 x 250 ns). Tree: see doc/collectives.md.
      form=$(awk -v n="$n" -v h="$hosts" -v s="$bytes" -v algo="$algo" -v packet="$packet" \
                 -v nic="$nic_gbps" 'BEGIN {
        split(packet, p, " ");  # wire and payload bytes per packet: NIC, then NVLink
        bo = nic * 1e9 / 8 * p[2] / p[1];   ao = 2 * 500e-9 + p[1] * 8 / (nic * 1e9);
        bi = 3600e9 / 8 * p[4] / p[3];      ai = 2 * 250e-9 + p[3] * 8 / 3600e9;
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
