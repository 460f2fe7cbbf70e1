#!/usr/bin/env bash
# Lab 5: incast, PFC and head-of-line blocking on the rdma fabric.
# Usage: examples/labs/lab5-incast-pfc.sh [build-dir] [output-dir]
# LAB_SMALL=1 sends smaller messages (the sanitizer CI's; the page's figures are the default's).
set -euo pipefail
build=${1:-build}
out=${2:-$build/labs/lab5}
mkdir -p "$out"
if [ "${LAB_SMALL:-0}" = 1 ]; then
  size=$((4 << 20))
else
  size=$((16 << 20))
fi
# 8 GPUs, one per host, 4 hosts per leaf, 2 leaves, 1 spine, 100 Gbps everywhere.
# Incast: ranks 1, 2, 3 (leaf A) and 5, 6 (leaf B) each send one message to rank 4 (leaf B).
# Victim: rank 0 (leaf A) sends one message to rank 7 (leaf B), whose link is idle otherwise.
python3 - "$out" "$size" <<'PY'
import json, sys
out, size = sys.argv[1], int(sys.argv[2])
incast, sink, victim, idle = [1, 2, 3, 5, 6], 4, 0, 7

def node(nid, name, kind, peer_attr, peer, tag):
    return {"id": nid, "name": name, "type": kind, "ctrl_deps": [], "data_deps": [],
            "start_time_micros": 0, "duration_micros": 0,
            "attr": [{"name": "is_cpu_op", "type": "bool_val", "value": False},
                     {"name": peer_attr, "type": "int32_val", "value": peer},
                     {"name": "comm_tag", "type": "int32_val", "value": tag},
                     {"name": "comm_size", "type": "int64_val", "value": size}]}

for rank in range(8):
    nodes = []
    if rank in incast:
        nodes.append(node(0, f"incast_send_to_{sink}", "COMM_SEND_NODE", "comm_dst", sink, 0))
    elif rank == sink:
        for i, src in enumerate(incast):
            nodes.append(node(i, f"incast_recv_from_{src}", "COMM_RECV_NODE", "comm_src", src, 0))
    elif rank == victim:
        nodes.append(node(0, f"victim_send_to_{idle}", "COMM_SEND_NODE", "comm_dst", idle, 0))
    elif rank == idle:
        nodes.append(node(0, f"victim_recv_from_{victim}", "COMM_RECV_NODE", "comm_src", victim, 0))
    doc = {"format": "chakra-et-json", "format_version": 1,
           "metadata": {"version": "0.0.4", "attr": []}, "nodes": nodes}
    with open(f"{out}/incast.{rank}.json", "w") as f:
        json.dump(doc, f)
PY
for rank in 0 1 2 3 4 5 6 7; do
  "$build/bin/chakra_jsonizer" --reverse --quiet --input "$out/incast.$rank.json" \
    --output "$out/incast.$rank.et"
done
# Four fabrics: PFC with line-rate senders, PFC with DCQCN (the paper's rate reduction, and
# NIC firmware's: a CNP lowers the target rate only if the rate rose since the last one), and
# no PFC (drops, go-back-N).
run() {
  local name=$1; shift
  "$build/bin/chakra-cluster" --trace="$out/incast" --output="$out/$name" --quiet \
    --transport=rdma --hosts=8 --gpus-per-host=1 --topology=leaf-spine --hosts-per-leaf=4 \
    --spines=1 --nic-bandwidth=100Gbps "$@" > "$out/$name.txt"
}
run pfc --ns3::RdmaNic::CongestionControl=none
run pfc-dcqcn --ns3::RdmaNic::CongestionControl=dcqcn
run dcqcn-noclamp --ns3::RdmaNic::CongestionControl=dcqcn \
  --ns3::DcqcnRateControl::ClampTargetRate=false
run no-pfc --ns3::RdmaNic::CongestionControl=none --ns3::RdmaSwitch::PfcEnabled=false
# The rdma model's parameters this lab talks about, as the program has them.
{ "$build/bin/chakra-cluster" --PrintAttributes=ns3::RdmaSwitch
  "$build/bin/chakra-cluster" --PrintAttributes=ns3::DcqcnRateControl; } > "$out/attributes.txt" 2>&1
python3 - "$out" "$size" <<'PY'
import csv, os, re, sys
out, size = sys.argv[1], int(sys.argv[2])
ideal_us = size * 8 / 100e9 * 1e6
# The cluster and its fabric as chakra-cluster built them, and the parameters.
for line in open(f"{out}/pfc.txt"):
    if line.startswith(("cluster:", "topology:")):
        print(line, end="")
value = dict(re.findall(r"--ns3::\w+::(\w+)=\[([^]]*)\]", open(f"{out}/attributes.txt").read()))
print(f"switch: ECN Kmin {int(value['EcnKmin']) / 1e3:g} KB, Kmax {int(value['EcnKmax']) / 1e3:g} KB; "
      f"PFC threshold {value['PfcThreshold']} (alpha {value['PfcAlpha']} of the free buffer)")
print(f"DCQCN: additive increase {int(value['AdditiveIncrease'][:-3]) / 1e6:g} Mbps per "
      f"{int(value['RateIncreasePeriod'].strip('+ns')) / 1e3:g} us, byte counter "
      f"{int(value['ByteCounter']) / 1e6:g} MB, target rate lowered on every CNP: "
      f"{value['ClampTargetRate']}")
print(f"message {size >> 20} MiB: alone at 100 Gbps {ideal_us:.0f} us, the incast of 5 at best "
      f"{5 * ideal_us:.0f} us")
print(f"{'fabric':<13} {'victim_us':>10} {'incast_us':>10} {'pauses':>7} {'paused_us':>10} "
      f"{'uplink_paused_us':>17} {'ecn_marks':>10} {'drops':>6} {'resent':>7}")
for name in ["pfc", "pfc-dcqcn", "dcqcn-noclamp", "no-pfc"]:
    ranks = {int(r["rank"]): r for r in csv.DictReader(open(f"{out}/{name}/ranks.csv"))}
    fabric = list(csv.DictReader(open(f"{out}/{name}/fabric.csv")))
    rdma = list(csv.DictReader(open(f"{out}/{name}/rdma.csv")))
    total = next(r for r in fabric if r["port"] == "total")
    # The victim's first shared hop: leaf A's port towards the spine.
    uplink = sum(float(r["paused_us"]) for r in fabric
                 if r["port"].startswith("leaf0") and r["to"].startswith("spine"))
    print(f"{name:<13} {float(ranks[7]['finish_us']):>10.1f} {float(ranks[4]['finish_us']):>10.1f} "
          f"{int(total['pfc_pause_sent']):>7} {float(total['paused_us']):>10.1f} {uplink:>17.1f} "
          f"{int(total['ecn_marks']):>10} {int(total['drops']):>6} "
          f"{sum(int(r['resent']) for r in rdma):>7}")
PY
