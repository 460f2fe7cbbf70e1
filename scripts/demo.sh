#!/usr/bin/env bash
# The demo: turn a small hand-written trace into a Chakra .et with the project's own writer,
# read it back, and print what it holds.
set -euo pipefail
build=${1:-build}
bin=$build/bin
out=$build/demo
mkdir -p "$out"
echo "== hand-written JSON -> .et (examples/traces/tiny-step.json)"
"$bin/chakra_jsonizer" --reverse --input_filename examples/traces/tiny-step.json \
  --output_filename "$out/tiny-step.0.et"
echo "== .et -> JSON"
"$bin/chakra_jsonizer" --input_filename "$out/tiny-step.0.et" --output_filename "$out/tiny-step.0.json"
echo "== summary"
"$bin/chakra_et_info" "$out/tiny-step.0.et"
