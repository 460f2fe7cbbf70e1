#!/usr/bin/env bash
# Figures the reference pages quote from a command's output, checked against a fresh run of
# that command: every <!-- lab-output --> block of doc/collectives.md (the NCCL model's
# predicted / simulated tables) and of doc/workloads.md (the tensor-parallel overlap modes) must
# appear, line for line, in what the commands below print
# (test/lab-page-check.py; numbers within 0.5%). A model change that moves a quoted figure
# fails here until the page is rerun, instead of leaving the page stale.
#
#   test/doc-figures-test.sh BUILD_DIR
set -euo pipefail
build=${1:?usage: doc-figures-test.sh BUILD_DIR}
src=$(cd "$(dirname "$0")/.." && pwd)
tool="$build/bin/chakra_nccl_tests"
out=$(mktemp)
trap 'rm -f "$out"' EXIT
# NCCL_ALGO / NCCL_PROTO from the caller's environment would change what runs.
run() { env -u NCCL_ALGO -u NCCL_PROTO "$@" >>"$out" 2>&1; }

# doc/collectives.md: PAT against the ring on 64 one-GPU nodes (item 12).
run NCCL_ALGO=PAT "$tool" all_gather -b 8K -e 1G -f 8 --hosts 64 --gpus-per-host 1 \
    --algorithm nccl --transport flow
run NCCL_ALGO=Ring "$tool" all_gather -b 8K -e 1G -f 8 --hosts 64 --gpus-per-host 1 \
    --algorithm nccl --transport flow
# NVLS with SHARP on 4 x 8 H100 (item 13).
run NCCL_ALGO=NVLS "$tool" all_reduce -b 64K -e 1G -f 16 --hosts 4 --gpus-per-host 8 \
    --gpu H100 --algorithm nccl --transport flow --topology rail-optimized --sharp on
# "busbw side by side": NCCL's choices on 1 and 2 hosts of 8 H100.
for hosts in 1 2; do
    run "$tool" all_reduce -b 8 -e 1G -f 8 --hosts "$hosts" --gpus-per-host 8 --gpu H100 \
        --transport flow --topology rail-optimized --algorithm nccl
done
python3 "$src/test/lab-page-check.py" "$src/doc/collectives.md" "$out" 0.005

# doc/workloads.md, "Tensor-parallel overlap": the three modes on one host of 8 H100.
: >"$out"
steps=$(mktemp -d)
trap 'rm -rf "$out" "$steps"' EXIT
for mode in none async userbuffers; do
    "$build/bin/chakra_generator" --workload llm --model llama3-70b --ranks 8 --tp 8 \
        --sequence-parallel --seq 8192 --gbs 1 --precision fp8 --tp-comm-overlap "$mode" \
        --allow-oversubscribed-memory --output-prefix "$steps/$mode/step" >/dev/null 2>&1
    run "$build/bin/chakra-cluster" --trace "$steps/$mode/step" --hosts 1 --gpus-per-host 8 \
        --transport flow
done
python3 "$src/test/lab-page-check.py" "$src/doc/workloads.md" "$out" 0.005
echo "doc-figures: doc/collectives.md's and doc/workloads.md's quoted figures hold"
