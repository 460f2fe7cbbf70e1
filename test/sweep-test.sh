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
  python3 "$root/scripts/sweep.py" --trace "$out/dp" --output "$1" --binary "$build/bin/chakra-cluster" \
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
if python3 "$root/scripts/sweep.py" --trace "$out/dp" --output "$out/c" --binary "$build/bin/chakra-cluster" \
     --grid topology=hypercube 2> "$out/err.txt"; then
  fail "an unknown topology should fail"
fi
grep -q "FAILED" "$out/err.txt" || fail "no clear failure line"
# Topology variants (each with flags of its own) and transports as grid dimensions.
python3 "$root/scripts/sweep.py" --trace "$out/dp" --output "$out/v" --binary "$build/bin/chakra-cluster" \
  --variant rail:topology=rail-optimized,gpusPerHost=2,spines=1 \
  --variant torus:topology=torus,torusDims=2x2 --transport tcp --jobs 2 2>/dev/null ||
  fail "a sweep over topology variants failed"
rows=$(($(wc -l < "$out/v/sweep.csv") - 1))
[ "$rows" = 2 ] || fail "expected 2 variant rows, got $rows"
head -1 "$out/v/sweep.csv" | grep -q "^transport,variant," || fail "missing transport/variant columns"
grep -q "^tcp,\"torus:topology=torus,torusDims=2x2\",1," "$out/v/sweep.csv" || fail "missing the torus variant row"
# transport auto: the row says which model ran (4 GPUs: rdma up to a limit of 4, flow above 3).
python3 "$root/scripts/sweep.py" --trace "$out/dp" --output "$out/auto" --binary "$build/bin/chakra-cluster" \
  --grid ns3::GpuClusterHelper::AutoPacketLimit=3,4 --transport auto --set gpusPerHost=2 2>/dev/null ||
  fail "a sweep with transport auto failed"
model_of() { # the model_run column of the row whose limit is $1
  awk -F, -v limit="$1" 'NR == 1 { for (i = 1; i <= NF; ++i) if ($i == "model_run") c = i; next }
                         $1 == limit { print $c }' "$out/auto/sweep.csv"
}
[ "$(model_of 3)" = flow ] || fail "auto above the limit: expected flow, got '$(model_of 3)'"
[ "$(model_of 4)" = rdma ] || fail "auto within the limit: expected rdma, got '$(model_of 4)'"
if python3 "$root/scripts/sweep.py" --trace "$out/dp" --output "$out/w" --binary "$build/bin/chakra-cluster" \
     --variant "broken" 2> "$out/err2.txt"; then
  fail "a variant without flags should fail"
fi
grep -q "is not NAME:FLAG=V" "$out/err2.txt" || fail "no clear error for a bad variant"

# Plots (issue 23): a flag of names on the x axis (ended in a Python traceback), another metric
# than the iteration time, one line per value of a second flag.
plot_sweep() { # DIR ARGS...: the sweep of algorithms x bandwidths, plotted as asked
  local dir=$1
  shift
  python3 "$root/scripts/sweep.py" --trace "$out/dp" --output "$dir" --binary "$build/bin/chakra-cluster" \
    --grid algorithm=ring,tree,direct --grid nicBandwidth=50Gbps,200Gbps --set gpusPerHost=2 \
    --jobs 2 --plot "$@"
}
plot_sweep "$out/p" --x algorithm --series nicBandwidth --y time_ALL_REDUCE_us 2> "$out/p.err" ||
  fail "a plot against algorithm failed: $(tail -3 "$out/p.err")"
grep -q Traceback "$out/p.err" && fail "a traceback: $(cat "$out/p.err")"
[ -s "$out/p/sweep-time_ALL_REDUCE_us.png" ] || fail "no picture of time_ALL_REDUCE_us"
# The collective's time is the report's: the step has one all-reduce (2 layers of 1 MiB, one
# 25 MiB bucket); the same run made directly gives the time_us of collectives.csv.
"$build/bin/chakra-cluster" --trace="$out/dp" --gpus-per-host=2 --algorithm=tree \
  --nic-bandwidth=50Gbps --output="$out/direct" > /dev/null
direct=$(awk -F, 'NR == 1 { for (i = 1; i <= NF; ++i) if ($i == "time_us") c = i; next }
                  { n++; t = $c } END { if (n == 1) printf "%.3f", t }' "$out/direct/collectives.csv")
[ -n "$direct" ] || fail "the step should have one all-reduce"
column() { # CSV COLUMN KEY1 KEY2: the column of the row whose first two fields are KEY1,KEY2
  awk -F, -v name="$2" -v a="$3" -v b="$4" 'NR == 1 { for (i = 1; i <= NF; ++i) if ($i == name) c = i; next }
                                             $1 == a && $2 == b { print $c }' "$1"
}
[ "$(column "$out/p/sweep.csv" time_ALL_REDUCE_us tree 50Gbps)" = "$direct" ] ||
  fail "time_ALL_REDUCE_us $(column "$out/p/sweep.csv" time_ALL_REDUCE_us tree 50Gbps) is not the report's $direct"
# The plotted points: one line per bandwidth, the algorithms side by side in grid order (0, 1,
# 2) with the CSV's values.
expected=$(for bw in 50Gbps 200Gbps; do
             echo "\"nicBandwidth=$bw\""
             i=0
             for a in ring tree direct; do
               echo "$i $(column "$out/p/sweep.csv" time_ALL_REDUCE_us "$a" "$bw" | sed 's/0*$//; s/\.$//')"
               i=$((i + 1))
             done
           done)
actual=$(grep -v '^$' "$out/p/sweep-time_ALL_REDUCE_us-plot.dat")
[ "$actual" = "$expected" ] || fail "plotted points differ from the CSV: $actual vs $expected"
grep -q "set xtics ('ring' 0, 'tree' 1, 'direct' 2)" "$out/p/sweep-time_ALL_REDUCE_us-plot.gp" ||
  fail "the algorithms are not the x axis' labels"
# Log axes; bandwidths placed by their value (Gbps); a third flag: one panel per value.
python3 "$root/scripts/sweep.py" --trace "$out/dp" --output "$out/l" --binary "$build/bin/chakra-cluster" \
  --grid nic-bandwidth=25Gbps,100Gbps,400Gbps --grid algorithm=ring,tree \
  --grid topology=single-switch,ring --set gpus-per-host=2 --jobs 2 --plot --series Algorithm \
  --log-x --log-y --y busbw_ALL_REDUCE_GBps --y exposed_comm_max_us 2> "$out/l.err" ||
  fail "a log-log plot failed: $(tail -3 "$out/l.err")"
for metric in busbw_ALL_REDUCE_GBps exposed_comm_max_us; do
  gp=$out/l/sweep-$metric-plot.gp
  [ -s "$out/l/sweep-$metric.png" ] || fail "no picture of $metric"
  grep -q "^set logscale x" "$gp" && grep -q "^set logscale y" "$gp" || fail "$metric: axes not logarithmic"
  grep -q "^set multiplot layout 1,2" "$gp" || fail "$metric: not one panel per topology"
  [ "$(grep -c "^set title 'topology=" "$gp")" = 2 ] || fail "$metric: panel titles"
  [ "$(grep -c '^"algorithm=' "$out/l/sweep-$metric-plot.dat")" = 4 ] || fail "$metric: 2 lines x 2 panels expected"
done
[ "$(awk 'NF == 2 { print $1 }' "$out/l/sweep-exposed_comm_max_us-plot.dat" | sort -gu | tr '\n' ' ')" = "25.0 100.0 400.0 " ] ||
  fail "bandwidths not placed at 25, 100, 400 Gbps"
# Mistakes said before anything runs, or naming what exists.
expect_sweep_error() { # TEXT ARGS...
  local text=$1
  shift
  if plot_sweep "$out/e" "$@" 2> "$out/e.err"; then fail "should fail: $*"; fi
  grep -q "sweep: error: .*$text" "$out/e.err" || fail "no clear error for $*: $(cat "$out/e.err")"
  grep -q Traceback "$out/e.err" && fail "a traceback for $*"
  return 0
}
expect_sweep_error "--x topology is not a grid dimension" --x topology
expect_sweep_error "nicBandwidth and nic_bandwidth are the same chakra-cluster flag" \
  --grid nic_bandwidth=1Gbps
expect_sweep_error "--series algorithm is also the x axis" --x algorithm --series algorithm
expect_sweep_error "--y speed is not a metric column" --y speed
expect_sweep_error "--log-x needs numbers on the x axis; algorithm has names" --x algorithm --log-x
expect_sweep_error "no run has the metric busbw_ALL_TO_ALL_GBps (the CSV has: .*busbw_ALL_REDUCE_GBps" \
  --y busbw_ALL_TO_ALL_GBps
[ ! -e "$out/e/sweep.csv" ] || grep -q "^ring,50Gbps" "$out/e/sweep.csv" || fail "runs before a plot error lost"

# SIGTERM (issue 30): the runs in progress stop, their directories and the CSV's temporary go,
# the sweep ends by the signal; the CSV keeps the finished runs.
# Runs of a few seconds each (the small dp step's take 0.2 s: on a loaded machine the poll
# below could miss all four), so that one is caught running; it is stopped, not waited for.
"$build/bin/chakra_generator" --workload data-parallel --ranks 8 --layers 32 --layer-bytes 64MiB \
  --output-prefix "$out/slow" 2>/dev/null
mkdir -p "$out/tmp"
TMPDIR=$out/tmp python3 "$root/scripts/sweep.py" --trace "$out/slow" --out "$out/s" \
  --binary "$build/bin/chakra-cluster" --grid nicBandwidth=1Gbps,2Gbps,3Gbps,4Gbps \
  --set gpusPerHost=2 --jobs 1 2> "$out/s.err" &
sweep_pid=$!
children=
for _ in $(seq 300); do
  children=$(pgrep -P "$sweep_pid" -x chakra-cluster || true)
  [ -n "$children" ] && break
  sleep 0.1
done
[ -n "$children" ] || fail "the sweep started no run"
kill -TERM "$sweep_pid"
status=0
wait "$sweep_pid" || status=$?
[ "$status" = 143 ] || fail "the sweep should end by SIGTERM (143), got $status: $(cat "$out/s.err")"
for child in $children; do
  ! kill -0 "$child" 2>/dev/null || fail "run $child still running after the sweep was stopped"
done
[ -z "$(ls -A "$out/tmp")" ] || fail "left behind: $(ls -A "$out/tmp")"
[ ! -e "$out/s/sweep.csv.tmp" ] || fail "sweep.csv.tmp left behind"
grep -q "stopped by SIGTERM" "$out/s.err" || fail "no word of the stop: $(cat "$out/s.err")"
# Layouts of an LLM step (issue 25): each variant runs a trace of its own; the rows carry the
# training step's throughput and the time split. A 2-stage pipeline leaves a bubble that tensor
# parallelism over the same GPUs does not (and shows exposed TP instead); the shares of each
# row add up to the iteration.
cat > "$out/toy.json" <<'JSON'
{"name": "toy", "layers": 4, "hidden": 1024, "ffn": 4096, "heads": 8, "kv-heads": 8,
 "head-dim": 128, "vocab": 1024, "gated-mlp": false}
JSON
for layout in "2 1" "1 2"; do
  set -- $layout
  "$build/bin/chakra_generator" --workload llm --model "$out/toy.json" --ranks 2 --tp "$1" \
    --pp "$2" --seq 512 --gbs 4 --output-prefix "$out/tp$1pp$2/step" > /dev/null 2>&1 ||
    fail "the toy LLM step tp $1 pp $2 was not written"
done
python3 "$root/scripts/sweep.py" --output "$out/llm" --binary "$build/bin/chakra-cluster" \
  --variant "tp2:trace=$out/tp2pp1/step" --variant "pp2:trace=$out/tp1pp2/step" \
  --set hosts=1 --set gpusPerHost=2 --transport flow --jobs 2 2>/dev/null ||
  fail "a sweep over layouts (a trace per variant) failed"
python3 - "$out/llm/sweep.csv" <<'PY' || fail "layout sweep: $(cat "$out/llm/sweep.csv")"
import csv, sys
rows = {r["variant"].split(":")[0]: r for r in csv.DictReader(open(sys.argv[1]))}
for name, row in rows.items():
    shares = sum(float(row[c]) for c in row if c.startswith("split_"))
    assert abs(shares - 100) < 0.01, (name, shares)
    assert 0 < float(row["mfu_pct"]) < 100 and float(row["tflops_per_gpu"]) > 0, name
assert float(rows["pp2"]["split_bubble_pct"]) > 5 + float(rows["tp2"]["split_bubble_pct"])
assert float(rows["tp2"]["split_tp_pct"]) > 0 and float(rows["pp2"]["split_tp_pct"]) == 0
PY
if python3 "$root/scripts/sweep.py" --output "$out/nt" --binary "$build/bin/chakra-cluster" \
     --grid nicBandwidth=1Gbps 2> "$out/err3.txt"; then
  fail "a sweep without any trace should fail"
fi
grep -q "no trace: give --trace" "$out/err3.txt" || fail "no clear error for a missing trace"
# Several jobs on one cluster (issue 28): the placement swept, each job's slowdown. Two 2-GPU
# hosts per leaf, one spine at 4:1: contiguous gives each job a leaf (slowdown 1), spread makes
# both cross the same uplinks (slower than alone).
"$build/bin/chakra_generator" --workload collective --ranks 4 --size 4MiB \
  --output-prefix "$out/ar" > /dev/null 2>&1
python3 "$root/scripts/sweep.py" --output "$out/jobs" --binary "$build/bin/chakra-cluster" \
  --job "$out/ar:name=a" --job "$out/ar:name=b" --grid placement=contiguous,spread \
  --set interference=true --set gpusPerHost=2 --set topology=leaf-spine --set hostsPerLeaf=2 \
  --set spines=1 --set oversubscription=4 --transport flow --jobs 2 2>/dev/null ||
  fail "a sweep of two jobs' placement failed"
python3 - "$out/jobs/sweep.csv" <<'PY' || fail "placement sweep: $(cat "$out/jobs/sweep.csv")"
import csv, sys
rows = {r["placement"]: r for r in csv.DictReader(open(sys.argv[1]))}
for job in "ab":
    assert float(rows["contiguous"][f"job_{job}_slowdown"]) == 1, job
    assert float(rows["spread"][f"job_{job}_slowdown"]) > 1.05, job
    assert float(rows["spread"]["iteration_us"]) >= float(rows["spread"][f"job_{job}_iteration_us"])
PY
echo "sweep: ok"
