#!/usr/bin/env bash
# CTest: scripts/sweep.py's Dask backend (issue 16) on one machine, with Dask's LocalCluster:
# the same sweep.csv and plot data as the local backend; a sweep resumes (runs already in the
# CSV are not run again); a failed run, even one that cannot start on a worker, is a row with
# its error and the sweep goes on.
#   test/sweep-dask-test.sh BUILD_DIR
# Exits 77 (skipped) when no python3 has Dask distributed (Debian: python3-distributed).
set -euo pipefail
build=$1
root=$(cd "$(dirname "$0")/.." && pwd)
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }

# Debian's package serves Debian's python3, which another python3 in PATH may hide.
python=
for candidate in python3 /usr/bin/python3; do
  if "$candidate" -c "import distributed" 2>/dev/null; then
    python=$candidate
    break
  fi
done
[ -n "$python" ] || { echo "SKIP: no python3 with Dask distributed (python3-distributed)"; exit 77; }

"$build/bin/chakra_generator" --workload data-parallel --ranks 4 --layers 2 --layer-bytes 1MiB \
  --output-prefix "$out/dp" >/dev/null 2>&1
grid=(--grid nicBandwidth=50Gbps,100Gbps,200Gbps --grid topology=single-switch,ring
      --set gpusPerHost=2)
sweep() {
  local dir=$1
  shift
  "$python" "$root/scripts/sweep.py" --trace "$out/dp" --out "$dir" \
    --binary "$build/bin/chakra-cluster" "${grid[@]}" --jobs 2 --plot "$@"
}

# 1. The same CSV and plot from both backends.
sweep "$out/local" --backend local 2> "$out/local.err" || fail "local sweep: $(tail -3 "$out/local.err")"
sweep "$out/dask" --backend dask 2> "$out/dask.err" || fail "dask sweep: $(tail -3 "$out/dask.err")"
rows=$(($(wc -l < "$out/dask/sweep.csv") - 1))
[ "$rows" = 6 ] || fail "expected 6 rows, got $rows"
cmp "$out/local/sweep.csv" "$out/dask/sweep.csv" || fail "the dask backend's CSV differs"
cmp "$out/local/sweep-plot.dat" "$out/dask/sweep-plot.dat" || fail "the plot data differs"
cmp "$out/local/sweep.png" "$out/dask/sweep.png" || fail "the plot differs"
grep -q "6 to run (dask backend" "$out/dask.err" || fail "the dask backend did not run the grid"

# 2. Resume: keep the first two rows, marked (iteration_us 1.000, which no run gives), and drop
# the rest; the resumed sweep runs the 4 missing runs only and keeps the marked rows.
head -3 "$out/dask/sweep.csv" | awk -F, 'BEGIN { OFS = "," } NR > 1 { $5 = "1.000" } { print }' \
  > "$out/partial.csv"
mkdir -p "$out/resume" && cp "$out/partial.csv" "$out/resume/sweep.csv"
sweep "$out/resume" --backend dask 2> "$out/resume.err" || fail "resumed sweep: $(tail -3 "$out/resume.err")"
grep -q "6 runs, 2 already in .*, 4 to run" "$out/resume.err" || fail "resume did not skip: $(head -1 "$out/resume.err")"
[ "$(grep -c ",1.000," "$out/resume/sweep.csv")" = 2 ] || fail "the rows already there were run again"
cmp <(tail -n +4 "$out/resume/sweep.csv") <(tail -n +4 "$out/local/sweep.csv") ||
  fail "the resumed runs differ from the local backend's"
# Nothing left to run: no run at all, the same file.
sweep "$out/resume" --backend dask 2> "$out/again.err" || fail "second resume failed"
grep -q "6 already in .*, 0 to run" "$out/again.err" || fail "a complete sweep ran again"

# 3. Failures are rows, not the end of the sweep: a topology that cannot be built ...
if "$python" "$root/scripts/sweep.py" --trace "$out/dp" --out "$out/bad" --backend dask --jobs 2 \
     --binary "$build/bin/chakra-cluster" --grid topology=single-switch,torus \
     --set gpusPerHost=2 2> "$out/bad.err"; then
  fail "a sweep with a failed run should exit non-zero"
fi
grep -q "^single-switch,2,1," "$out/bad/sweep.csv" || fail "the good run is missing"
grep -q "^torus,2,,.*torus" "$out/bad/sweep.csv" || fail "the failed run has no row with its error"
# ... and a program that cannot even start on the workers.
chmod -x "$out/dp.0.et" # any existing file that is not a program
if "$python" "$root/scripts/sweep.py" --trace "$out/dp" --out "$out/noexec" --backend dask \
     --binary "$out/dp.0.et" --grid nicBandwidth=50Gbps,100Gbps 2> "$out/noexec.err"; then
  fail "runs that cannot start should fail the sweep"
fi
[ "$(grep -c "PermissionError" "$out/noexec/sweep.csv")" = 2 ] ||
  fail "the runs that could not start are not rows with their error"
# --retry-failed runs them again (here with a working program).
"$python" "$root/scripts/sweep.py" --trace "$out/dp" --out "$out/noexec" --backend dask \
  --binary "$build/bin/chakra-cluster" --grid nicBandwidth=50Gbps,100Gbps --retry-failed \
  2> "$out/retry.err" || fail "retry failed: $(tail -3 "$out/retry.err")"
grep -q "PermissionError" "$out/noexec/sweep.csv" && fail "--retry-failed kept the errors"
echo "sweep-dask: ok"
