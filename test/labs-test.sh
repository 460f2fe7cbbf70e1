#!/usr/bin/env bash
# CTest: runs one course lab with LAB_SMALL=1 and checks what its lesson claims.
#   test/labs-test.sh BUILD_DIR LAB_NUMBER
set -euo pipefail
build=$1
lab=$2
root=$(cd "$(dirname "$0")/.." && pwd)
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
script=$(ls "$root"/examples/labs/lab"$lab"-*.sh)
LAB_SMALL=1 "$script" "$build" "$out" > "$out/output.txt"
cat "$out/output.txt"
fail() { echo "FAIL: $*" >&2; exit 1; }
case $lab in
1)
  # Hierarchical beats the flat ring at every size on hosts joined by 100 Gbps NICs, and the
  # closed forms of ring (>= 1 MiB) and hierarchical are within 5%.
  awk '$3 == "ring" {ring[$2] = $4} $3 == "hierarchical" {hier[$2] = $4; form[$2] = $6}
       END { for (s in hier) { if (hier[s] >= ring[s]) exit 1;
                               if (s != "64KiB" && (hier[s] / form[s] > 1.05 || hier[s] / form[s] < 0.95)) exit 2 } }' \
    "$out/output.txt" || fail "hierarchical should beat ring and match its closed form"
  ;;
2)
  # iteration = compute + exposed communication; faster GPUs expose more communication.
  awk 'NR > 1 { if ($3 - ($4 + $6) > 0.01 || ($4 + $6) - $3 > 0.01) exit 1 }' "$out/output.txt" ||
    fail "iteration != compute + exposed communication"
  awk 'NR > 1 && $1 == "0" { e[$2] = $6 } END { if (!(e["2x"] > e["1x"])) exit 1 }' "$out/output.txt" ||
    fail "a faster GPU should expose more communication"
  ;;
3)
  # More oversubscription, less all-to-all bandwidth, longer iteration.
  awk '$1 == "1" { bw1 = $4; it1 = $2 } $1 == "4" { bw4 = $4; it4 = $2 }
       END { if (!(bw4 < 0.6 * bw1 && it4 > it1)) exit 1 }' "$out/output.txt" ||
    fail "oversubscription 4 should slow the all-to-alls"
  ;;
4)
  # Rail-only (PXN over NVLink, no spine) keeps the all-to-all at NIC speed: its all-to-all bus
  # bandwidth beats both 2:1 fabrics. The data-parallel step's hierarchical all-reduce talks
  # between GPUs of one index across hosts, which a rail switch joins without the spines: rail
  # designs beat leaf-spine, and rail-only equals rail-optimized.
  awk '$1 == "moe" { a2a[$2] = $5 } $1 == "dp" { it[$2] = $3 }
       END { if (!(a2a["rail-only"] > a2a["rail-optimized"] && a2a["rail-only"] > a2a["leaf-spine"])) exit 1;
             if (!(it["rail-optimized"] < 0.8 * it["leaf-spine"])) exit 2;
             d = it["rail-only"] - it["rail-optimized"]; if (d > 0.01 * it["rail-optimized"] || -d > 0.01 * it["rail-optimized"]) exit 3 }' \
    "$out/output.txt" || fail "rail-only should lead the all-to-all and rail designs the data-parallel step"
  ;;
5)
  # Columns: fabric victim_us incast_us pauses paused_us uplink_paused_us ecn_marks drops resent.
  # PFC without congestion control: lossless, pauses spread to leaf A's uplink and the victim
  # (alone on its receiver's link) waits behind the incast: > 3x its time alone. DCQCN keeps
  # the queues below the PFC thresholds: the victim within 20% of its time alone. No PFC:
  # drops, and go-back-N still delivers everything (every rank finished, resent packets).
  ideal=$(awk '/^message/ { print $8 }' "$out/output.txt")
  awk -v ideal="$ideal" '$1 == "pfc" { if (!($8 == 0 && $4 > 0 && $6 > 0 && $2 > 3 * ideal)) exit 1 }
       $1 == "pfc-dcqcn" { if (!($8 == 0 && $2 < 1.2 * ideal)) exit 2 }
       $1 == "no-pfc" { if (!($8 > 0 && $9 > 0)) exit 3 }' "$out/output.txt" ||
    fail "PFC should block the victim, DCQCN free it, and go-back-N recover drops without PFC"
  grep -c '^\(pfc\|pfc-dcqcn\|no-pfc\) ' "$out/output.txt" | grep -qx 3 || fail "three fabrics expected"
  ;;
esac
echo "lab $lab: ok"
