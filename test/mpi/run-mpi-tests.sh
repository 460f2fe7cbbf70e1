#!/usr/bin/env bash
# Distributed runs (issue 16), "make test-mpi": one simulation over 1, 2 and 4 MPI processes
# gives the same report, CSV files and timeline, byte for byte, as the one-process run; an
# invalid partition, or a transport that cannot be distributed, is one clear error.
#
#   test/mpi/run-mpi-tests.sh BIN_DIR [WORK_DIR]
#
# BIN_DIR holds chakra-cluster and chakra_generator of an ns-3 built with MPI
# (scripts/build-ns3-mpi.sh prints it). Every case names its transport (-tcp, -rdma) and passes
# it explicitly: the default transport is rdma, and a case without the flag would silently run
# the other model than its name says. Scenarios, each on both transports:
#   demo-4x4   the demo's data-parallel step (16 ranks, 16 layers of 16 MiB) on 4 hosts x 4 GPUs
#              (1, 2 and 4 processes)
#   demo-2x8   the same step on the demo's own cluster, 2 hosts x 8 GPUs (2 processes)
#   demo-4x4-rr  demo-4x4 with the hosts dealt out in turn (round-robin partition, 2 processes)
#   ar64       a 64-rank all-reduce (ALLREDUCE_SIZE, default 4MiB) on 8 hosts x 8 GPUs, one
#              switch (1, 2 and 4 processes)
#   ar64-nm    ar64 with ns-3's NullMessageSimulatorImpl (2 processes)
#   jobs2      two jobs (an 8-rank data-parallel step and an 8-rank all-reduce) on hosts that
#              interleave (1, 2 and 4 processes; every job's CSVs); --interference refused
#   ar64-ls    the same on a leaf-spine (2 hosts per leaf, 2 spines): reported, not checked
#              (KNOWN below: a few ns may differ with 2 and 4 processes; doc/building.md says why)
# and on rdma only:
#   gather16-pfc  a 16-rank gather of 1 MiB, a static PFC threshold: the switch pauses NICs of
#              other processes (PFC frames cross: checked); its times are reported, not
#              checked (KNOWN, as ar64-ls)
# Prints one line per run with its wall time (doc/benchmarks.md) and "N passed, N failed".
set -uo pipefail
bin=${1:?usage: $0 BIN_DIR [WORK_DIR]}
work=${2:-$(mktemp -d)}
[ -n "${2:-}" ] || trap 'rm -rf "$work"' EXIT
mkdir -p "$work"
size=${ALLREDUCE_SIZE:-4MiB}
mpirun=(mpirun --oversubscribe)
[ "$(id -u)" -ne 0 ] || mpirun+=(--allow-run-as-root)
passed=0
failed=0
pass() { echo "PASS: $*"; passed=$((passed + 1)); }
fail() { echo "FAIL: $*"; failed=$((failed + 1)); }

for tool in chakra-cluster chakra_generator; do
  [ -x "$bin/$tool" ] || { echo "no $bin/$tool (build with scripts/build-ns3-mpi.sh)" >&2; exit 1; }
done
command -v mpirun >/dev/null || { echo "no mpirun (apt-get install openmpi-bin)" >&2; exit 1; }

"$bin/chakra_generator" --workload data-parallel --ranks 16 --layers 16 --layer-bytes 16MiB \
  --forward-us 300 --backward-us 600 --bucket-bytes 25MiB --output-prefix "$work/dp" >/dev/null
"$bin/chakra_generator" --workload collective --collective all_reduce --ranks 64 --size "$size" \
  --output-prefix "$work/ar" >/dev/null
"$bin/chakra_generator" --workload collective --collective gather --ranks 16 --size 1MiB \
  --output-prefix "$work/ga" >/dev/null

# run NAME PROCESSES ARGS...: one run into $work/NAME-npP/ (stdout, stderr, CSVs, timeline);
# P = 0 runs the program directly (no mpirun: the ordinary one-process run).
run() {
  local name=$1 np=$2
  shift 2
  local dir=$work/$name-np$np
  rm -rf "$dir" && mkdir -p "$dir"
  local start end
  start=$(date +%s.%N)
  # A run that hangs (processes waiting for each other's messages) fails after RUN_TIMEOUT
  # seconds (default 600) instead of holding the whole test: exit status 124.
  if [ "$np" = 0 ]; then
    timeout "${RUN_TIMEOUT:-600}" "$bin/chakra-cluster" "$@" --out="$dir/csv" \
      --timeline="$dir/timeline.json" > "$dir/stdout" 2> "$dir/stderr"
  else
    timeout "${RUN_TIMEOUT:-600}" "${mpirun[@]}" -np "$np" "$bin/chakra-cluster" "$@" \
      --out="$dir/csv" --timeline="$dir/timeline.json" > "$dir/stdout" 2> "$dir/stderr"
  fi
  echo $? > "$dir/status"
  end=$(date +%s.%N)
  printf '%s processes=%s wall_s=%.2f\n' "$name" "$np" "$(echo "$end - $start" | bc)" |
    tee -a "$work/times.txt"
}

# same NAME P: run P gave exit 0 and the same bytes as the plain run (np0). The report lines
# naming the output files differ by their directory only: the directory is masked.
same() {
  local name=$1 np=$2
  local a=$work/$name-np0 b=$work/$name-np$np
  if [ "$(cat "$b/status")" != 0 ]; then
    fail "$name on $np process(es) exited $(cat "$b/status"): $(tail -3 "$b/stderr")"
    return
  fi
  local diffs=()
  cmp -s <(sed "s|$a|DIR|g" "$a/stdout") <(sed "s|$b|DIR|g" "$b/stdout") || diffs+=(report)
  # Every CSV, those of each job (csv/job-NAME/) included.
  local file
  while IFS= read -r file; do
    cmp -s "$a/csv/$file" "$b/csv/$file" || diffs+=("$file")
  done < <(cd "$a/csv" && find . -name '*.csv' | sort)
  cmp -s "$a/timeline.json" "$b/timeline.json" || diffs+=(timeline.json)
  if [ ${#diffs[@]} -eq 0 ]; then
    pass "$name: $np process(es) give the one-process report, CSVs and timeline byte for byte"
  else
    fail "$name: $np process(es) differ from one process in: ${diffs[*]}"
  fi
}

demo44=(--trace="$work/dp" --hosts=4 --gpusPerHost=4)
demo28=(--trace="$work/dp" --hosts=2 --gpusPerHost=8)
ar64=(--trace="$work/ar" --hosts=8 --gpusPerHost=8)
ar64ls=(--trace="$work/ar" --hosts=8 --gpusPerHost=8 --topology=leaf-spine --hostsPerLeaf=2
        --spines=2)

for transport in tcp rdma; do
  on=(--transport="$transport")
  run "demo-4x4-$transport" 0 "${demo44[@]}" "${on[@]}"
  if [ "$(cat "$work/demo-4x4-$transport-np0/status")" = 0 ] &&
     grep -q "finished 16/16" "$work/demo-4x4-$transport-np0/stdout" &&
     grep -q "^transport model: $transport" "$work/demo-4x4-$transport-np0/stdout"; then
    pass "demo-4x4-$transport: the one-process run finishes every rank on $transport"
  else
    fail "demo-4x4-$transport: the one-process run failed or ran another model: $(grep "^transport model" "$work/demo-4x4-$transport-np0/stdout") $(tail -3 "$work/demo-4x4-$transport-np0/stderr")"
  fi
  for np in 1 2 4; do
    run "demo-4x4-$transport" "$np" "${demo44[@]}" "${on[@]}"
    same "demo-4x4-$transport" "$np"
  done
  run "demo-2x8-$transport" 0 "${demo28[@]}" "${on[@]}"
  run "demo-2x8-$transport" 2 "${demo28[@]}" "${on[@]}"
  same "demo-2x8-$transport" 2
  # Another partition of the same cluster: the hosts in turn.
  run "demo-4x4-rr-$transport" 0 "${demo44[@]}" "${on[@]}"
  run "demo-4x4-rr-$transport" 2 "${demo44[@]}" "${on[@]}" \
    --ns3::GpuClusterHelper::Partition=round-robin
  same "demo-4x4-rr-$transport" 2

  run "ar64-$transport" 0 "${ar64[@]}" "${on[@]}"
  if grep -q "finished 64/64" "$work/ar64-$transport-np0/stdout" &&
     grep -q "^transport model: $transport" "$work/ar64-$transport-np0/stdout"; then
    pass "ar64-$transport: the one-process run finishes on $transport"
  else
    fail "ar64-$transport: the one-process run did not finish on $transport: $(tail -3 "$work/ar64-$transport-np0/stderr")"
  fi
  for np in 1 2 4; do
    run "ar64-$transport" "$np" "${ar64[@]}" "${on[@]}"
    same "ar64-$transport" "$np"
  done
  # ns-3's other algorithm, null messages: it needs a stop time (its null messages keep every
  # process's event queue non-empty, so it never sees the end), here well after the last rank.
  nm=(--stopTime=0.001)
  run "ar64-nm-$transport" 0 "${ar64[@]}" "${on[@]}" "${nm[@]}"
  run "ar64-nm-$transport" 2 "${ar64[@]}" "${on[@]}" "${nm[@]}" \
    --SimulatorImplementationType=ns3::NullMessageSimulatorImpl
  same "ar64-nm-$transport" 2
done

# Several jobs (issue 28): a data-parallel job and an all-reduce job, their hosts interleaved
# so that each job spans the processes; one timeline of both, each rank under its GPU.
# --interference runs more simulations than one, which ns-3's MPI interface cannot: refused
# (expect_error below).
"$bin/chakra_generator" --workload data-parallel --ranks 8 --layers 4 --layer-bytes 8MiB \
  --forward-us 100 --backward-us 200 --output-prefix "$work/dp8" >/dev/null
"$bin/chakra_generator" --workload collective --collective all_reduce --ranks 8 --size 4MiB \
  --output-prefix "$work/ar8" >/dev/null
jobs2=(--job="$work/dp8:name=dp,hosts=0+2" --job="$work/ar8:name=ar,hosts=1+3" --hosts=4
       --gpusPerHost=4)
for transport in tcp rdma; do
  run "jobs2-$transport" 0 "${jobs2[@]}" --transport="$transport"
  if [ "$(cat "$work/jobs2-$transport-np0/status")" = 0 ] &&
     [ "$(grep -c "finished 8/8" "$work/jobs2-$transport-np0/stdout")" = 2 ] &&
     [ -s "$work/jobs2-$transport-np0/csv/job-ar/ranks.csv" ]; then
    pass "jobs2-$transport: the one-process run finishes both jobs"
  else
    fail "jobs2-$transport: the one-process run did not finish both jobs: $(tail -3 "$work/jobs2-$transport-np0/stderr")"
  fi
  for np in 1 2 4; do
    run "jobs2-$transport" "$np" "${jobs2[@]}" --transport="$transport"
    same "jobs2-$transport" "$np"
  done
done

# An incast with PFC: 15 ranks send 1 MiB each to rank 0; with a static XOFF threshold the
# switch pauses the senders' NICs, several of which run in other processes than the switch.
# Every PAUSE and RESUME the switch sends must reach its NIC (received = sent in the gathered
# fabric table). Not byte for byte: many frames reach the switch, and PFC frames the NICs, at
# the same nanosecond as local events; see the leaf-spine below.
gather16=(--trace="$work/ga" --hosts=4 --gpusPerHost=4 --transport=rdma
          --ns3::RdmaSwitch::PfcThreshold=static)
# pfc NAME P: "sent received" PFC frames of the run's fabric table (total row)
pfc() {
  awk -F, 'NR == 1 { for (i = 1; i <= NF; ++i) { if ($i == "pfc_pause_sent") s = i;
                                                  if ($i == "pfc_pause_received") r = i } }
           $1 == "total" { print $s, $r }' "$work/$1-np$2/csv/fabric.csv" 2>/dev/null
}
for np in 0 2 4; do
  run gather16-pfc "$np" "${gather16[@]}"
  read -r sent received <<< "$(pfc gather16-pfc "$np")"
  if [ "$(cat "$work/gather16-pfc-np$np/status")" = 0 ] &&
     grep -q "finished 16/16" "$work/gather16-pfc-np$np/stdout" &&
     [ "${sent:-0}" -gt 0 ] && [ "$sent" = "$received" ]; then
    pass "gather16-pfc: $np process(es): every rank finishes, $sent PFC frames sent and received"
  else
    fail "gather16-pfc: $np process(es): exit $(cat "$work/gather16-pfc-np$np/status"), PFC frames sent ${sent:-?} received ${received:-?}: $(tail -2 "$work/gather16-pfc-np$np/stderr")"
  fi
  if [ "$np" != 0 ]; then
    if cmp -s "$work/gather16-pfc-np0/csv/ranks.csv" "$work/gather16-pfc-np$np/csv/ranks.csv"; then
      echo "gather16-pfc: $np process(es): the same ranks.csv"
    else
      echo "KNOWN: gather16-pfc: $np process(es): $(grep "iteration time" "$work/gather16-pfc-np$np/stdout") vs one process: $(grep "iteration time" "$work/gather16-pfc-np0/stdout")"
    fi
  fi
done

# Known difference: on the leaf-spine, packets of different processes reach a switch at the
# same nanosecond; ns-3 runs same-time events in the order they were scheduled, and a packet
# from another process is scheduled at the next synchronization, after the local ones.
for transport in tcp rdma; do
  run "ar64-ls-$transport" 0 "${ar64ls[@]}" --transport="$transport"
  for np in 2 4; do
    run "ar64-ls-$transport" "$np" "${ar64ls[@]}" --transport="$transport"
    if cmp -s "$work/ar64-ls-$transport-np0/csv/ranks.csv" "$work/ar64-ls-$transport-np$np/csv/ranks.csv"; then
      echo "ar64-ls-$transport: $np process(es): the same ranks.csv"
    else
      echo "KNOWN: ar64-ls-$transport: $np process(es): $(grep "iteration time" "$work/ar64-ls-$transport-np$np/stdout") vs one process: $(grep "iteration time" "$work/ar64-ls-$transport-np0/stdout")"
    fi
  done
done

# Invalid partitions: one clear error (said once), exit status non-zero, no report.
# expect_error NAME NP TEXT ARGS...
expect_error() {
  local name=$1 np=$2 text=$3
  shift 3
  local dir=$work/$name
  mkdir -p "$dir"
  "${mpirun[@]}" -np "$np" "$bin/chakra-cluster" "$@" --out="$dir/csv" > "$dir/stdout" 2> "$dir/stderr"
  local status=$?
  local said
  said=$(grep -c "chakra-cluster: error: .*$text" "$dir/stderr")
  if [ "$status" != 0 ] && [ "$said" = 1 ] && [ ! -e "$dir/csv" ]; then
    pass "$name: exit $status, one error: $(grep "chakra-cluster: error" "$dir/stderr")"
  else
    fail "$name: exit $status, error said $said time(s), csv $( [ -e "$dir/csv" ] && echo written || echo absent): $(cat "$dir/stderr" | head -5)"
  fi
}
expect_error too-many-processes 4 "4 processes but the cluster has 2 host(s)" "${demo28[@]}"
expect_error process-without-host 2 "gives process 1 no host" "${demo44[@]}" \
  --ns3::GpuClusterHelper::Partition=0,0,0,0
expect_error unknown-process 2 "host 3 is put on process 5" "${demo44[@]}" \
  --ns3::GpuClusterHelper::Partition=0,1,1,5
expect_error no-lookahead 2 "without delay" "${demo44[@]}" --nicLatency=0ns
expect_error jobs-interference 2 "--interference in a distributed (MPI) run" "${jobs2[@]}" \
  --interference
# (The help text in a variable: with pipefail, grep -q ending the pipe early fails it.)
help=$("$bin/chakra-cluster" --help 2>&1 || true)
if [[ $help == *flow* ]]; then
  expect_error flow-not-distributed 2 "flow model runs in one process" \
    "${demo44[@]}" --transport=flow
fi

echo "wall times (s):"
cat "$work/times.txt"
echo "$passed passed, $failed failed"
[ "$failed" = 0 ]
