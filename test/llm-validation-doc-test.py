#!/usr/bin/env python3
"""The LLM training-step table of doc/validation.md checked against fresh runs.

For every row that simulates in a minute or less (the larger [SC21] rows take minutes and are
left to their reproduce commands), this writes the row's step with chakra_generator, runs it with
chakra-cluster as the page says, and checks the "simulated at the default" cell (tokens/s per
GPU, or the [SC21] step time) and its "diff" against the published cell. A model change that
moves a row fails here until the page is rerun, instead of leaving the page stale.

    test/llm-validation-doc-test.py BUILD_DIR
"""
import os
import re
import subprocess
import sys
import tempfile

SRC = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
CONFIGS = os.path.join(SRC, "examples", "llm-configs")
# The page's clusters: DGX A100 for [SC21], the default DGX H100 cluster otherwise.
A100 = ["--nic-bandwidth", "200Gbps", "--nvlink-bandwidth", "2.4Tbps"]

# Row label (as the table's first cell starts) -> (GPUs, generator flags, cluster flags).
ROWS = {
    "[SC21] GPT 1.7B": (32, f"--model {CONFIGS}/sc21-gpt-1.7b.json --mbs 16 --gbs 512 "
                            "--seq 2048 --recompute full --gpu A100 --tp-comm-overlap none", A100),
    "[SC21] GPT 3.6B": (64, f"--model {CONFIGS}/sc21-gpt-3.6b.json --tp 2 --mbs 16 --gbs 512 "
                            "--seq 2048 --recompute full --gpu A100 --tp-comm-overlap none", A100),
    "[NeMo] Llama 3 8B": (8, "--model llama3-8b --fsdp --mbs 1 --gbs 128 --seq 8192 "
                             "--precision fp8 --gpu H100", []),
    "[NeMo] Llama 3 70B": (64, "--model llama3-70b --tp 4 --pp 8 --vp 5 --sequence-parallel "
                               "--zero 1 --mbs 1 --gbs 128 --seq 8192 --precision fp8 --gpu H100 "
                               "--tp-comm-overlap userbuffers", []),
    "[NeMo 26.04] Llama 3 70B": (64, "--model llama3-70b --tp 4 --pp 8 --vp 5 "
                                     "--sequence-parallel --zero 1 --mbs 1 --gbs 256 --seq 8192 "
                                     "--precision fp8 --gpu H100 --tp-comm-overlap userbuffers",
                                     []),
    "[Mosaic] MPT-1B, 8": (8, f"--model {CONFIGS}/mpt-1b.json --fsdp --mbs 14 --gbs 112 "
                              "--seq 2048 --gpu H100", []),
    "[Mosaic] MPT-3B, 16": (16, f"--model {CONFIGS}/mpt-3b.json --fsdp --mbs 10 --gbs 480 "
                                "--seq 2048 --gpu H100", []),
    "[Mosaic] MPT-3B, 8": (8, f"--model {CONFIGS}/mpt-3b.json --fsdp --mbs 5 --gbs 240 "
                              "--seq 4096 --gpu H100", []),
    "[Mosaic] MPT-7B, 8": (8, f"--model {CONFIGS}/mpt-7b.json --fsdp --mbs 6 --gbs 48 "
                              "--seq 2048 --gpu H100", []),
    "[Mosaic] MPT-13B, 8": (8, f"--model {CONFIGS}/mpt-13b.json --fsdp --mbs 2 --gbs 16 "
                               "--seq 2048 --gpu H100", []),
    "[Mosaic] MPT-13B, 64": (64, f"--model {CONFIGS}/mpt-13b.json --fsdp --mbs 2 --gbs 128 "
                                 "--seq 2048 --gpu H100", []),
    "[Mosaic] MPT-30B, 8": (8, f"--model {CONFIGS}/mpt-30b.json --fsdp --mbs 3 --gbs 504 "
                               "--seq 2048 --recompute full --gpu H100", []),
}


def number(text):
    return float(text.replace(",", ""))


def table_rows(page):
    """The rows of the table whose header starts '| row | layout | published'."""
    rows, inside = {}, False
    for line in open(page, encoding="utf-8"):
        if line.startswith("| row | layout | published"):
            inside = True
            continue
        if inside:
            if not line.startswith("|"):
                break
            cells = [c.strip() for c in line.strip().strip("|").split("|")]
            if not cells[0].startswith("---"):
                rows[cells[0]] = cells
    return rows


def simulate(build, work, gpus, flags, cluster):
    prefix = os.path.join(work, "step")
    subprocess.run([os.path.join(build, "bin", "chakra_generator"), "--workload", "llm",
                    "--ranks", str(gpus), *flags.split(), "--output-prefix", prefix],
                   check=True, capture_output=True, text=True)
    out = subprocess.run([os.path.join(build, "bin", "chakra-cluster"), "--trace", prefix,
                          "--hosts", str(max(1, gpus // 8)), "--gpus-per-host", "8",
                          "--transport", "flow", "--quiet", *cluster],
                         check=True, capture_output=True, text=True).stdout
    seconds = float(re.search(r"iteration time ([0-9.]+) us", out).group(1)) / 1e6
    tokens = float(re.search(r"training step: ([0-9.]+) tokens/s per GPU", out).group(1))
    return seconds, tokens


def main():
    build = sys.argv[1]
    page = os.path.join(SRC, "doc", "validation.md")
    rows = table_rows(page)
    failures = []
    # The sanitizer run (CHAKRA_QUICK=1) checks the rows of up to 16 GPUs only.
    quick = os.environ.get("CHAKRA_QUICK") == "1"
    checked = {k: v for k, v in ROWS.items() if not quick or v[0] <= 16}
    for label, (gpus, flags, cluster) in checked.items():
        matches = [cells for name, cells in rows.items() if name.startswith(label)]
        if len(matches) != 1:
            failures.append(f"{label}: {len(matches)} rows of the table start so")
            continue
        cells = matches[0]
        with tempfile.TemporaryDirectory() as work:
            seconds, tokens = simulate(build, work, gpus, flags, cluster)
        if label.startswith("[SC21]"):
            # "154.8 (3.12 s)" beside "137 (step 3.53 s)": the step times, in seconds.
            page_value = float(re.search(r"\(([0-9.]+) s\)", cells[3]).group(1))
            ok = abs(seconds - page_value) <= 0.005 + 1e-9
            # The diff is of the TFLOP/s the paper counts, on both sides of the row.
            diff = number(cells[3].split()[0]) / number(cells[2].split()[0]) - 1
            shown = f"{seconds:.2f} s"
        else:
            page_value = number(cells[3])
            published = number(cells[2])
            ok = abs(tokens - page_value) <= 0.5 + 1e-9
            diff = tokens / published - 1
            shown = f"{tokens:,.1f} tokens/s"
        page_diff = float(re.search(r"([+-][0-9.]+)%", cells[4]).group(1)) / 100
        # The diff cell rounds the ratio of the unrounded figures (the paper's TFLOP/s for
        # [SC21]): a tenth of a point either way.
        if not ok:
            failures.append(f"{label}: the page says {cells[3]}, the simulation gives {shown}")
        elif abs(diff - page_diff) > 0.0011:
            failures.append(f"{label}: the page's diff {cells[4]}, the figures give "
                            f"{100 * diff:+.1f}%")
        print(f"{label}: {shown} (page: {cells[3]}, {cells[4]})")
    if failures:
        print("FAIL: doc/validation.md's LLM table disagrees with a fresh run:", file=sys.stderr)
        for failure in failures:
            print("  " + failure, file=sys.stderr)
        return 1
    print(f"llm-validation-doc: {len(checked)} rows of doc/validation.md hold")
    return 0


if __name__ == "__main__":
    sys.exit(main())
