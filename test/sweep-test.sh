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
     --grid topology=hypercube 2> "$out/err.txt"; then
  fail "an unknown topology should fail"
fi
grep -q "FAILED" "$out/err.txt" || fail "no clear failure line"
# Topology variants (each with flags of its own) and transports as grid dimensions.
python3 "$root/scripts/sweep.py" --trace "$out/dp" --out "$out/v" --binary "$build/bin/chakra-cluster" \
  --variant rail:topology=rail-optimized,gpusPerHost=2,spines=1 \
  --variant torus:topology=torus,torusDims=2x2 --transport tcp --jobs 2 2>/dev/null ||
  fail "a sweep over topology variants failed"
rows=$(($(wc -l < "$out/v/sweep.csv") - 1))
[ "$rows" = 2 ] || fail "expected 2 variant rows, got $rows"
head -1 "$out/v/sweep.csv" | grep -q "^transport,variant," || fail "missing transport/variant columns"
grep -q "^tcp,\"torus:topology=torus,torusDims=2x2\",1," "$out/v/sweep.csv" || fail "missing the torus variant row"
# transport auto: the row says which model ran (4 GPUs: rdma up to a limit of 4, flow above 3).
python3 "$root/scripts/sweep.py" --trace "$out/dp" --out "$out/auto" --binary "$build/bin/chakra-cluster" \
  --grid ns3::GpuClusterHelper::AutoPacketLimit=3,4 --transport auto --set gpusPerHost=2 2>/dev/null ||
  fail "a sweep with transport auto failed"
model_of() { # the model_run column of the row whose limit is $1
  awk -F, -v limit="$1" 'NR == 1 { for (i = 1; i <= NF; ++i) if ($i == "model_run") c = i; next }
                         $1 == limit { print $c }' "$out/auto/sweep.csv"
}
[ "$(model_of 3)" = flow ] || fail "auto above the limit: expected flow, got '$(model_of 3)'"
[ "$(model_of 4)" = rdma ] || fail "auto within the limit: expected rdma, got '$(model_of 4)'"
if python3 "$root/scripts/sweep.py" --trace "$out/dp" --out "$out/w" --binary "$build/bin/chakra-cluster" \
     --variant "broken" 2> "$out/err2.txt"; then
  fail "a variant without flags should fail"
fi
grep -q "is not NAME:FLAG=V" "$out/err2.txt" || fail "no clear error for a bad variant"
echo "sweep: ok"
