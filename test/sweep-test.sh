#!/usr/bin/env bash
# CTest: scripts/sweep.py runs a grid in parallel, writes one row per run, gives the same bytes
# for the same flags, and fails clearly on a bad flag.
#   test/sweep-test.sh BUILD_DIR
set -euo pipefail
build=$1
root=$(cd "$(dirname "$0")/.." && pwd)
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }
"$build/bin/chakra_generator" --workload data-parallel --ranks 4 --layers 2 --layer-bytes 1MiB \
  --output-prefix "$out/dp" 2>/dev/null
sweep() {
  python3 "$root/scripts/sweep.py" --trace "$out/dp" --out "$1" --binary "$build/bin/chakra-cluster" \
    --grid nicBandwidth=50Gbps,200Gbps --grid topology=single-switch,ring --set gpusPerHost=2 --jobs 2
}
sweep "$out/a" 2>/dev/null
sweep "$out/b" 2>/dev/null
rows=$(($(wc -l < "$out/a/sweep.csv") - 1))
[ "$rows" = 4 ] || fail "expected 4 rows, got $rows"
cmp "$out/a/sweep.csv" "$out/b/sweep.csv" || fail "the same flags gave different results"
head -1 "$out/a/sweep.csv" | grep -q "iteration_us,exposed_comm_max_us" || fail "missing columns"
grep -q "busbw_ALL_REDUCE_GBps" "$out/a/sweep.csv" || fail "missing bus bandwidth column"
# A slower network cannot make the step faster.
awk -F, 'NR > 1 { t[$1 "," $2] = $5 }
         END { if (t["50Gbps,single-switch"] < t["200Gbps,single-switch"]) exit 1 }' \
  "$out/a/sweep.csv" || fail "50 Gbps faster than 200 Gbps"
if python3 "$root/scripts/sweep.py" --trace "$out/dp" --out "$out/c" --binary "$build/bin/chakra-cluster" \
     --grid topology=torus 2> "$out/err.txt"; then
  fail "an unknown topology should fail"
fi
grep -q "FAILED" "$out/err.txt" || fail "no clear failure line"
echo "sweep: ok"
