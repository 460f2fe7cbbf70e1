#!/usr/bin/env bash
# Lab 6: choosing TP, PP and DP for a 70B model on 256 GPUs.
# Usage: examples/labs/lab6-llm-parallel-layout.sh [build-dir] [output-dir]
# One training step of Llama 3 70B (chakra_generator --workload llm) for each layout of
# LAYOUTS (tp:pp:vp, data parallelism from the GPU count), run side by side by the sweep tool on
# 32 hosts x 8 H100s, rail-optimized, 400 Gbps NICs, with the flow model; the table is the
# sweep's time split. GBS (global batch, sequences of SEQ tokens) is the same for every layout.
# Layouts the generator refuses (memory, heads) are printed with the reason and not run.
# TP_OVERLAP=none|async|userbuffers: how the TP collectives overlap the GEMMs
# (chakra_generator --tp-comm-overlap; default async, Megatron-Core's).
# LAB_SMALL=1 runs Llama 3 8B on 32 GPUs (the sanitizer CI's; the page's figures are the
# default's).
set -euo pipefail
build=${1:-build}
out=${2:-$build/labs/lab6}
here=$(cd "$(dirname "$0")/../.." && pwd)
transport=${TRANSPORT:-flow}
mkdir -p "$out"
if [ "${LAB_SMALL:-0}" = 1 ]; then
  model=llama3-8b; hosts=4; seq=${SEQ:-1024}; gbs=${GBS:-16}
  layouts=${LAYOUTS:-"8:1:1 4:2:1 2:4:1 4:2:2"}
else
  model=llama3-70b; hosts=32; seq=${SEQ:-4096}; gbs=${GBS:-128}
  layouts=${LAYOUTS:-"8:1:1 8:2:1 8:4:1 8:8:1 4:8:1 2:8:1 8:4:5 1:8:1 16:2:1"}
fi
gpus=$((hosts * 8))
rm -rf "$out/sweep" "$out"/tp* "$out/layouts.txt"  # a sweep resumes: old rows would be kept
variants=()
for layout in $layouts; do
  IFS=: read -r tp pp vp <<< "$layout"
  name="tp${tp}-pp${pp}-vp${vp}"
  mkdir -p "$out/$name"
  # Megatron's distributed optimizer (ZeRO-1) and sequence parallelism, as NeMo's recipes.
  if line=$("$build/bin/chakra_generator" --workload llm --model "$model" --ranks "$gpus" \
      --tp "$tp" --pp "$pp" --vp "$vp" --sequence-parallel --zero 1 --seq "$seq" --gbs "$gbs" \
      --tp-comm-overlap "${TP_OVERLAP:-async}" \
      --output-prefix "$out/$name/step" 2>&1 | tr '\n' ' '); then
    variants+=(--variant "$name:trace=$out/$name/step")
    echo "$name ok $line" >> "$out/layouts.txt"
  else
    echo "$name refused $line" >> "$out/layouts.txt"
  fi
done
python3 "$here/scripts/sweep.py" --output "$out/sweep" --binary "$build/bin/chakra-cluster" \
  "${variants[@]}" --transport "$transport" --set hosts="$hosts" --set gpusPerHost=8 \
  --set topology=rail-optimized --set spines=8 --set nicBandwidth=400Gbps --jobs 2 \
  > /dev/null 2>&1
# The cluster as chakra-cluster builds it.
first=$(grep -m1 ' ok ' "$out/layouts.txt" | cut -d' ' -f1)
"$build/bin/chakra-cluster" --trace="$out/$first/step" --hosts="$hosts" --gpus-per-host=8 \
  --topology=rail-optimized --spines=8 --nic-bandwidth=400Gbps --transport="$transport" \
  --stop-time=1e-9 --rows=0 2>/dev/null | grep "^\(cluster\|topology\):" || true
echo "model: $model, $gpus GPUs, global batch $gbs x $seq tokens, micro-batch 1, sequence parallel, ZeRO-1"
python3 - "$out" "$gbs" "$gpus" <<'PY'
import csv, os, re, sys
out, gbs, gpus = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
rows = {r["variant"].split(":", 1)[0]: r
        for r in csv.DictReader(open(os.path.join(out, "sweep", "sweep.csv")))}
print(f"{'layout':>14} {'dp':>3} {'mb':>3} {'mem_GiB':>7} {'step_ms':>8} {'TFLOP/s':>7} "
      f"{'MFU%':>5} {'compute%':>8} {'TP%':>5} {'DP%':>5} {'bubble%':>7}")
refused = []
for line in open(os.path.join(out, "layouts.txt")):
    name, status, text = line.rstrip("\n").split(" ", 2)
    tp, pp, vp = (int(x) for x in re.findall(r"\d+", name))
    dp = gpus // (tp * pp)
    if status == "refused":
        refused.append(f"{name}: {text.split('error: ', 1)[-1]}")
        continue
    memory = re.search(r"memory per GPU: ([\d.]+) GiB", text).group(1)
    r = rows[name]
    print(f"{name:>14} {dp:>3} {gbs // dp:>3} {float(memory):>7.1f} "
          f"{float(r['iteration_us']) / 1e3:>8.1f} {float(r['tflops_per_gpu']):>7.1f} "
          f"{float(r['mfu_pct']):>5.1f} {float(r['split_compute_pct']):>8.1f} "
          f"{float(r['split_tp_pct']):>5.1f} {float(r['split_dp_pct']):>5.1f} "
          f"{float(r['split_bubble_pct']):>7.1f}")
for line in refused:
    print("refused:", line)
PY
