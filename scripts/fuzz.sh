#!/usr/bin/env bash
# "make fuzz": builds the libFuzzer programs (clang, AddressSanitizer + UndefinedBehaviorSanitizer,
# in build-fuzz/) and runs each for FUZZ_SECONDS seconds (default 60), one after the other.
# A crasher is copied into test/fuzz/corpus/<target>/, where "make test" replays it
# (fuzz-regression-test) until the bug is fixed; the exit status is 1 if any was found.
#
#   FUZZ_SECONDS=600 FUZZ_TARGETS="et_stream et_json" scripts/fuzz.sh
#
# Variables: FUZZ_SECONDS, FUZZ_TARGETS (default: all six), FUZZ_BUILD_DIR (build-fuzz),
# JOBS (2), CHAKRA_TEST_DATA (../shared/data: seeds from the real traces, optional).
# The summary line of each target (executions, corpus size) goes to stdout and to
# $FUZZ_BUILD_DIR/summary.txt; doc/reliability.md records the long runs.
set -euo pipefail
cd "$(dirname "$0")/.."

seconds=${FUZZ_SECONDS:-60}
build=${FUZZ_BUILD_DIR:-build-fuzz}
jobs=${JOBS:-2}
targets=${FUZZ_TARGETS:-"et_stream host_trace kineto_trace linked_trace et_json process_groups"}
data=${CHAKRA_TEST_DATA:-../shared/data}

# clang and its runtimes (libFuzzer and the sanitizers), from Debian like scripts/install-deps.sh.
packages=(clang-14 libclang-rt-14-dev)
missing=()
for package in "${packages[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$package")
  fi
done
if [ ${#missing[@]} -gt 0 ]; then
  if [ "$(id -u)" -ne 0 ]; then
    echo "missing Debian packages: ${missing[*]} (sudo apt-get install -y ${missing[*]})" >&2
    exit 1
  fi
  export DEBIAN_FRONTEND=noninteractive
  apt-get install -y -q --no-install-recommends "${missing[@]}" ||
    { apt-get update -q && apt-get install -y -q --no-install-recommends "${missing[@]}"; }
fi

if [ ! -f "$build/build.ninja" ]; then
  sanitize="-fsanitize=address,undefined -fno-sanitize-recover=undefined"
  cmake -S . -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
    -DCMAKE_CXX_COMPILER=clang++-14 -DCHAKRA_FUZZ=ON \
    "-DCMAKE_CXX_FLAGS=$sanitize -fsanitize=fuzzer-no-link -fno-omit-frame-pointer" \
    "-DCMAKE_EXE_LINKER_FLAGS=$sanitize" "-DCMAKE_SHARED_LINKER_FLAGS=$sanitize"
fi
# The tools make seeds (linked traces, JSON forms) from the real traces.
cmake --build "$build" -j "$jobs" --target chakra-fuzz chakra_trace_link chakra_jsonizer

# ----- seeds: the real traces (small ones, uncompressed) and the regression corpus ----------
seeds="$build/seeds"
rm -rf "$seeds"
for t in $targets; do mkdir -p "$seeds/$t" "$build/corpus/$t" "$build/crashers/$t"; done
seed() { # seed TARGET FILE: adds the uncompressed file if it is under 256 KiB
  local out="$seeds/$1/$(basename "${2%.gz}")"
  zcat -f "$2" > "$out"
  [ "$(stat -c %s "$out")" -le 262144 ] || rm -f "$out"
}
if [ -d "$data" ]; then
  for f in "$data"/et/astra-microbenchmarks/*/*/*.0.et "$data"/et/astra-custom-ring-allreduce-8npus/*.[01].et \
           "$data"/et/chakra-feeder-test/chakra.0.et.gz; do
    seed et_stream "$f"
  done
  for pair in "hta-simple-add/benchmark_simple_add_et benchmark_simple_add_trace" \
              "torch113-gloo/pytorch_et_0 kineto_trace_0" "torch113-gloo/pytorch_et_1 kineto_trace_1"; do
    set -- $pair
    dir=$(dirname "$1")
    host="$data/host-device/$1.json.gz"
    device="$data/host-device/$dir/$2.json.gz"
    seed host_trace "$host"
    seed linked_trace "$host"
    seed kineto_trace "$device"
    "$build/bin/chakra_trace_link" --chakra-host-trace "$host" --chakra-device-trace "$device" \
      --rank 0 --output-file "$seeds/linked_trace/$(basename "$1")-linked.json" --log-level ERROR || true
  done
  seed host_trace "$data/host-only/chakra-tests/1.0.2-chakra.0.0.4.json.gz"
  seed linked_trace "$data/host-only/chakra-tests/1.0.2-chakra.0.0.4.json.gz"
  for f in "$seeds"/et_stream/*.et; do
    [ -f "$f" ] && "$build/bin/chakra_jsonizer" --quiet --input "$f" \
      --output "$seeds/et_json/$(basename "$f").json" || true
  done
fi

# ----- the runs ---------------------------------------------------------------------------
# The entry points write each input to a scratch file: in memory when /dev/shm is there.
if [ -z "${TMPDIR:-}" ] && [ -d /dev/shm ] && [ -w /dev/shm ]; then
  export TMPDIR=/dev/shm
fi
status=0
summary="$build/summary.txt"
: > "$summary"
for t in $targets; do
  log="$build/fuzz-$t.log"
  echo "== fuzz $t for $seconds s"
  set +e
  # -timeout is generous: a shared machine can stall a run for seconds; a hang runs forever.
  nice -n 10 "$build/fuzz/fuzz-$t" -max_total_time="$seconds" -timeout=120 -rss_limit_mb=2048 \
    -report_slow_units=100000 \
    -print_final_stats=1 -artifact_prefix="$build/crashers/$t/" \
    "$build/corpus/$t" "$seeds/$t" "test/fuzz/corpus/$t" > "$log" 2>&1
  code=$?
  set -e
  execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)
  corpus=$(ls "$build/corpus/$t" | wc -l)
  found=0
  for crash in "$build/crashers/$t"/*; do
    [ -f "$crash" ] || continue
    cp "$crash" "test/fuzz/corpus/$t/"
    echo "   new crasher: test/fuzz/corpus/$t/$(basename "$crash") (see $log)"
    rm -f "$crash"
    found=$((found + 1))
  done
  line="$t: ${seconds}s, ${execs:-?} executions, corpus $corpus inputs, $found crashers (exit $code)"
  echo "   $line"
  echo "$line" >> "$summary"
  if [ "$found" -gt 0 ] || [ "$code" -ne 0 ]; then
    status=1
  fi
done
exit $status
