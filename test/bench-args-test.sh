#!/usr/bin/env bash
# The benchmarks take their flags as every tool does (ns3::ToolArgs): --help lists the flags
# and exits 0; a misspelt flag and a bad value each stop the bench before it runs anything,
# with exit code 2 and one line on stderr naming the flag. No bench runs here.
#   test/bench-args-test.sh BUILD_DIR
set -uo pipefail
bench=${1:?usage: bench-args-test.sh BUILD_DIR}/bench
failures=0

fail() {
  echo "FAIL: $*"
  failures=$((failures + 1))
}

# expect_help BENCH FLAG...: --help exits 0 and its text names every FLAG.
expect_help() {
  local name=$1
  shift
  local out
  out=$(timeout 10 "$bench/$name" --help 2>&1)
  local code=$?
  [ "$code" -eq 0 ] || fail "$name --help: exit $code, expected 0"
  for flag in "$@"; do
    grep -qF -- "$flag" <<<"$out" || fail "$name --help does not list $flag"
  done
}

# expect_refused BENCH NAMED ARG...: exit 2 and exactly one line on stderr, naming NAMED.
expect_refused() {
  local name=$1 named=$2
  shift 2
  local err
  err=$(timeout 10 "$bench/$name" "$@" 2>&1 >/dev/null)
  local code=$?
  [ "$code" -eq 2 ] || fail "$name $*: exit $code, expected 2 (stderr: ${err:0:200})"
  [ "$(wc -l <<<"$err")" -eq 1 ] || fail "$name $*: stderr is not one line: ${err:0:300}"
  grep -qF -- "$named" <<<"$err" || fail "$name $*: stderr does not name $named: $err"
}

expect_help et-io-bench "<nodes>" "<path>"
expect_refused et-io-bench "--node" --node=5
expect_refused et-io-bench "<nodes>" 5e6

expect_help et-feeder-bench "<nodes>" "<path>" "<window>"
expect_refused et-feeder-bench "--windows" --windows 8
expect_refused et-feeder-bench "<window>" 1000 /tmp/unused.et 0

expect_help trace-link-bench "<data-dir>" "<repeats>"
expect_refused trace-link-bench "--repeat" --repeat=3
expect_refused trace-link-bench "<repeats>" /nonexistent -1

expect_help converter-bench "<trace>"
expect_refused converter-bench "--trace" --trace=x.json

expect_help simulation-bench --transport --size --quiet "<workload>" "<ranks>"
expect_refused simulation-bench "--sise" --sise=1GiB ring 8
expect_refused simulation-bench "--size" --size=64MB/s ring 8
expect_refused simulation-bench "--transport" --transport=tcp,rdam ring 8
expect_refused simulation-bench "<workload>" rnig 8
expect_refused simulation-bench "<ranks>" ring eight

expect_help collective-accuracy-bench --quick --n --sizes --collectives --algorithms --sections \
  --data --transport
expect_refused collective-accuracy-bench "--section" --section=flat
expect_refused collective-accuracy-bench "--n" --n=2,x
expect_refused collective-accuracy-bench "--sizes" --sizes=1MiB,lots
expect_refused collective-accuracy-bench "--sections" --sections=flta
expect_refused collective-accuracy-bench "--collectives" --collectives=all-reduse
expect_refused collective-accuracy-bench "--algorithms" --algorithms=rign
expect_refused collective-accuracy-bench "--transport" --transport=udp

expect_help flow-validation-bench --sections --quick --n --sizes --collectives --algorithms \
  --gpus --workloads --topologies --layers --packet --timeout
expect_refused flow-validation-bench "--gpu" --gpu=16
expect_refused flow-validation-bench "--gpus" --gpus=12
expect_refused flow-validation-bench "--workloads" --workloads=dp,ddp
expect_refused flow-validation-bench "--topologies" --topologies=leaf-spin
expect_refused flow-validation-bench "--layers" --layers=0
expect_refused flow-validation-bench "--packet" --packet=flow
expect_refused flow-validation-bench "--timeout" --timeout=10min

expect_help flow-scaling-bench --workloads --ranks --transports --topology --timeout --markdown
expect_refused flow-scaling-bench "--rank" --rank=64
expect_refused flow-scaling-bench "--ranks" --ranks=64,-1
expect_refused flow-scaling-bench "--workloads" --workloads=ring64Q
expect_refused flow-scaling-bench "--transports" --transports=flo
expect_refused flow-scaling-bench "--topology" --topology=fat-tre
expect_refused flow-scaling-bench "--timeout" --timeout=

expect_help topology-bench --gpus --kinds --phases
expect_refused topology-bench "--kind" --kind=torus
expect_refused topology-bench "--gpus" --gpus=1020
expect_refused topology-bench "--kinds" --kinds=fat-tree,tours
expect_refused topology-bench "--phases" --phases=graph,udp

if [ "$failures" -ne 0 ]; then
  echo "$failures check(s) failed"
  exit 1
fi
echo "every bench refuses a misspelt flag and a bad value with one line naming it"
