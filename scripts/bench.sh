#!/usr/bin/env bash
# Runs every benchmark and prints its figures (doc/benchmarks.md records them).
#   scripts/bench.sh [build-dir] [quick]
# "quick" shrinks the long ones (full: about 15 minutes on 2 cores).
set -euo pipefail
build=${1:-build}
mode=${2:-full}
data=${CHAKRA_TEST_DATA:-$(cd "$(dirname "$0")/.." && pwd)/../shared/data}
bench=$build/bench
run() { echo; echo "\$ $*"; "$@"; }
if [ "$mode" = quick ]; then
  run "$bench/et-io-bench" 1000000
  run "$bench/et-feeder-bench" 1000000
  run "$bench/simulation-bench" dp 16
  run "$bench/simulation-bench" ring 8
  run "$bench/collective-accuracy-bench" --quick --n=2,8 --sections=flat
else
  run "$bench/et-io-bench"
  run "$bench/et-feeder-bench"
  run "$bench/simulation-bench" dp
  run "$bench/simulation-bench" ring
  run "$bench/collective-accuracy-bench"
fi
if [ -d "$data" ]; then
  run "$bench/trace-link-bench" "$data" 5
  linked=$(mktemp -d)/linear-linked.json.gz
  "$build/bin/chakra_trace_link" --chakra-host-trace "$data/host-device/param-linear/linear_et.json.gz" \
    --chakra-device-trace "$data/host-device/param-linear/linear_kineto.json.gz" --rank 0 \
    --output-file "$linked" --log-level ERROR
  run "$bench/converter-bench" "$data/host-only/param-resnet/resnet_et_1.1.0.json.gz" "$linked"
  rm -rf "$(dirname "$linked")"
else
  echo; echo "(shared traces absent: trace-link-bench and converter-bench skipped)"
fi
