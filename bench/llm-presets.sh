#!/usr/bin/env bash
# Every `--workload llm` preset end to end (issue 25): one training step written by
# chakra_generator and run by chakra-cluster, at 64 GPUs on rdma and 1,024 GPUs on flow.
# Prints one row per case (doc/workloads.md, "Every preset at 64 and 1,024 GPUs").
#   bench/llm-presets.sh [build-dir] [--quick] [--only PRESET[,PRESET...]] [--sizes 64,1024]
#                        [--transport64 rdma|flow]
# --quick runs only the 64-GPU cases; --transport64 flow runs them on the flow model (a figure
# for each when the packet-level run is over the time limit). Each run is niced, one at a
# time, under a 14 GB address space limit and a 10-minute timeout (LLM_PRESETS_TIMEOUT,
# seconds; LLM_PRESETS_VMEM, KiB); a case over either is a row saying so and how far it got,
# and the rest still run.
#
# Layouts: the published recipe's where it fits the generator's rules at this size, changed
# where it does not (the reason is next to each case); --seq 4096 and the least global batch the
# layout allows (pp micro-batches per data-parallel replica, one without a pipeline), so a step
# stays small enough to simulate here.
set -uo pipefail
build=build
quick=0
only=""
sizes="64,1024"
transport64=rdma
while [ $# -gt 0 ]; do
  case "$1" in
    --quick) quick=1 ;;
    --only) only=$2; shift ;;
    --only=*) only=${1#--only=} ;;
    --sizes) sizes=$2; shift ;;
    --sizes=*) sizes=${1#--sizes=} ;;
    --transport64) transport64=$2; shift ;;
    --transport64=*) transport64=${1#--transport64=} ;;
    --help | -h) sed -n '2,16p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    -*) echo "llm-presets: unknown flag $1" >&2; exit 2 ;;
    *) build=$1 ;;
  esac
  shift
done
[ "$quick" = 1 ] && sizes=64
case "$transport64" in rdma | flow | tcp) ;; *) echo "llm-presets: --transport64 $transport64: rdma, flow or tcp" >&2; exit 2 ;; esac
gen=$build/bin/chakra_generator
cluster=$build/bin/chakra-cluster
for tool in "$gen" "$cluster"; do
  [ -x "$tool" ] || { echo "llm-presets: $tool not built (cmake --build $build --target chakra_generator chakra-cluster)" >&2; exit 2; }
done
timeout_s=${LLM_PRESETS_TIMEOUT:-600}
vmem_kib=${LLM_PRESETS_VMEM:-14000000}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
seq=4096

# case: preset GPUs transport "generator layout flags" (the global batch is in the flags)
cases=(
  # Recipes: NeMo / Megatron-Bridge performance summary, DGX-H100
  # (docs.nvidia.com/nemo/megatron-bridge/latest/performance-summary.html; doc/validation.md
  # [NeMo]) and the Megatron-Bridge H100 perf recipes (docs.nvidia.com/nemo/megatron-bridge/
  # latest/apidocs/bridge/bridge.perf_recipes.llama.h100.llama31.html).
  # Llama 3 8B: NeMo runs FSDP over 8 GPUs at seq 8192; Megatron's distributed optimizer
  # (zero 1, dp only) fits at 4096 with less traffic.
  "llama3-8b 64 rdma --tp 1 --pp 1 --zero 1 --gbs 64"
  "llama3-8b 1024 flow --tp 1 --pp 1 --zero 1 --gbs 1024"
  # Llama 3 70B: NeMo's 64-GPU row, TP4 (SP) PP8 VP5, distributed optimizer.
  "llama3-70b 64 rdma --tp 4 --pp 8 --vp 5 --sequence-parallel --zero 1 --gbs 16"
  "llama3-70b 1024 flow --tp 4 --pp 8 --vp 5 --sequence-parallel --zero 1 --gbs 256"
  # GPT-3 175B: NeMo runs TP4 PP8 VP6 at seq 2048. At 4096 and 64 GPUs TP4 (dp 2) needs
  # 88 GiB per GPU: TP8 PP8 VP6 (dp 1) fits, and is kept at 1,024 for one layout.
  "gpt3-175b 64 rdma --tp 8 --pp 8 --vp 6 --sequence-parallel --zero 1 --gbs 8"
  "gpt3-175b 1024 flow --tp 8 --pp 8 --vp 6 --sequence-parallel --zero 1 --gbs 128"
  # Mixtral 8x7B: NeMo's TP1 PP4 VP8 EP8.
  "mixtral-8x7b 64 rdma --tp 1 --pp 4 --vp 8 --ep 8 --zero 1 --gbs 64"
  "mixtral-8x7b 1024 flow --tp 1 --pp 4 --vp 8 --ep 8 --zero 1 --gbs 1024"
  # Llama 3.1 405B: at 64 GPUs nothing fits (16 bytes of model state per parameter = 6.5 TB >
  # 64 x 80 GB): oversubscribed; NeMo's TP8 PP8 VP8 split (below) with dp 1, which also keeps
  # the packet-level run short (no data-parallel traffic: with pp 2 dp 4 the step moved about
  # 76 GB per rank over the NICs, 4.4 G events, 40-55 minutes). At 1,024, NeMo's
  # recipe (Megatron-Bridge's H100 llama31_405b: TP8 (SP) PP8 CP2 VP8, seq 8192, the
  # embedding and the loss each counted as a layer, 126 + 2 = 128 slots over 64 chunks;
  # distributed optimizer); gbs 64 = 8 micro-batches per replica (dp 8), the least that
  # interleaving allows (the recipe's is 512).
  "llama3-405b 64 rdma --tp 8 --pp 8 --vp 8 --sequence-parallel --zero 1 --account-for-embedding-in-pipeline-split --account-for-loss-in-pipeline-split --gbs 8 --allow-oversubscribed-memory"
  "llama3-405b 1024 flow --tp 8 --pp 8 --cp 2 --vp 8 --sequence-parallel --zero 1 --account-for-embedding-in-pipeline-split --account-for-loss-in-pipeline-split --seq 8192 --gbs 64"
  # DeepSeek-V3 (arXiv:2412.19437, 3.2: PP16, EP64, ZeRO-1, no TP): its 61 layers allow only
  # pp 1 here, so TP8 splits the 128 heads instead, with sequence parallelism as Megatron-Core
  # requires for MoE with TP. The experts keep what DeepSeek trained with, no tensor
  # parallelism: --etp 1 (Megatron-Core's --expert-tensor-parallel-size 1), whole experts, each
  # TP rank dispatching only its own s / tp tokens; the expert grid then spans the TP ranks too,
  # so EP64 fits 64 GPUs as well as 1,024 (with ep 8 at 64, each GPU would hold 32 whole experts
  # per layer: 444 GiB and a step of expert-gradient reduce-scatters). 671B at 16 bytes per
  # parameter does not fit 64 GPUs: oversubscribed.
  "deepseek-v3 64 rdma --tp 8 --pp 1 --ep 64 --etp 1 --sequence-parallel --zero 1 --gbs 8 --allow-oversubscribed-memory"
  "deepseek-v3 1024 flow --tp 8 --pp 1 --ep 64 --etp 1 --sequence-parallel --zero 1 --gbs 128"
)

# The figure after LABEL on the line holding it (empty when absent).
field() { grep -o "$2[^,;]*" "$1" | head -n 1 | sed "s/^$2//"; }

printf '| preset | GPUs | transport | layout | step ms | model TFLOP/s per GPU | MFU | time split | memory per GPU | wall s | peak RSS MiB |\n'
printf '|---|---|---|---|---|---|---|---|---|---|---|\n'
for entry in "${cases[@]}"; do
  read -r preset gpus transport flags <<< "$entry"
  case ",$sizes," in *",$gpus,"*) ;; *) continue ;; esac
  [ "$gpus" = 64 ] && transport=$transport64
  if [ -n "$only" ]; then case ",$only," in *",$preset,"*) ;; *) continue ;; esac; fi
  prefix=$work/$preset-$gpus/step
  mkdir -p "$(dirname "$prefix")"
  layout=$(echo "$flags" | sed -e 's/--allow-oversubscribed-memory/(oversubscribed)/' \
    -e 's/--sequence-parallel/sp/' -e 's/--zero /zero /' \
    -e 's/--account-for-embedding-in-pipeline-split --account-for-loss-in-pipeline-split/embedding+loss as layers/' \
    -e 's/--//g')
  # shellcheck disable=SC2086 # the layout flags are words
  if ! "$gen" --workload llm --model "$preset" --ranks "$gpus" --seq "$seq" $flags \
      --output-prefix "$prefix" > "$work/gen.out" 2>&1; then
    printf '| %s | %s | %s | %s | generator failed: %s |||||||\n' "$preset" "$gpus" "$transport" \
      "$layout" "$(grep -m1 error "$work/gen.out")"
    continue
  fi
  memory=$(grep -o 'memory per GPU: [0-9.]* GiB' "$work/gen.out" | head -n 1 | sed 's/memory per GPU: //')
  grep -q WARNING "$work/gen.out" && memory="$memory (over)"
  start=$(date +%s.%N)
  (
    ulimit -v "$vmem_kib"
    /usr/bin/time -v timeout "$timeout_s" nice "$cluster" --trace "$prefix" --hosts $((gpus / 8)) \
      --gpus-per-host 8 --transport "$transport" --progress 30
  ) > "$work/run.out" 2> "$work/run.err"
  rc=$?
  wall=$(echo "$(date +%s.%N) - $start" | bc)
  rss=$(grep 'Maximum resident' "$work/run.err" | awk '{printf "%.0f", $NF / 1024}')
  out=$work/run.out
  step=$(grep -o 'iteration time [0-9.]* us' "$out" | head -n 1 | awk '{printf "%.1f", $3 / 1000}')
  tflops=$(grep -o '[0-9.]* model TFLOP/s per GPU' "$out" | head -n 1 | awk '{print $1}')
  mfu=$(grep -o 'MFU [0-9.]*%' "$out" | head -n 1 | sed 's/MFU //')
  split=$(grep 'time split' "$out" | head -n 1 | sed -e 's/.*iteration): //' -e 's/exposed //g' \
    -e 's/ (waiting on PP send\/recv/ (PP wait/')
  if [ "$rc" != 0 ]; then
    status="exit $rc"
    [ "$rc" = 124 ] && status="timeout ${timeout_s} s"
    # How far it got: the last progress line (simulated time, nodes done), or the error.
    step="$status; $(grep -iE 'error|what\(\)' "$work/run.err" | head -n 1)$(grep -i 'simulated' "$work/run.err" | tail -n 1)"
  elif grep -q 'did not finish' "$out"; then
    step="$step ($(grep -o 'finished [0-9]*/[0-9]*' "$out" | head -n 1))"
  fi
  printf '| %s | %s | %s | %s | %s | %s | %s | %s | %s | %.0f | %s |\n' "$preset" "$gpus" \
    "$transport" "$layout" "${step:-?}" "${tflops:-?}" "${mfu:-?}" "${split:-?}" "$memory" \
    "$wall" "${rss:-?}"
  rm -rf "$(dirname "$prefix")"
done
