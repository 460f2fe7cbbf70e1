#!/usr/bin/env bash
# Installs the built module into a temporary prefix ("cmake --install"), then
#  1. runs every installed program the way a user would, without LD_LIBRARY_PATH: each tool of
#     utils/ and each example answers --help, and the installed chakra_generator writes a small
#     step that the installed chakra_et_info, chakra_check_ranks and chakra-cluster read and
#     simulate (the programs find libns3-chakra.so through their run path, $ORIGIN/../lib; the
#     prefix is moved before they run, so no absolute path can make them work);
#  2. configures, builds and runs test/external-project against that prefix: a project outside
#     this tree that finds the package with find_package(chakra-ns3) and links ns3::libchakra.
#   test/install-test.sh BUILD_DIR
set -euo pipefail
build=$(cd "$1" && pwd)
root=$(cd "$(dirname "$0")/.." && pwd)
source_dir=$root/test/external-project
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fail() { echo "install-test: $*" >&2; exit 1; }

cmake --install "$build" --prefix "$work/installed" >/dev/null
# Moved after installing: a run path that names the install prefix would no longer find the
# library, one relative to the program still does.
mv "$work/installed" "$work/prefix"
prefix=$work/prefix
for expected in include/ns3/chakra-module.h include/ns3/et_def.pb.h include/ns3/comm-transport.h \
                lib/cmake/chakra-ns3/chakra-ns3Config.cmake lib/libns3-chakra.so; do
  [ -e "$prefix/$expected" ] || fail "$expected was not installed"
done

# Every program of the sources is installed: the tools (utils/chakra-x-y.cc -> chakra_x_y) and
# the examples (examples/NAME.cc -> NAME).
programs=()
for source in "$root"/utils/chakra-*.cc; do
  name=$(basename "$source" .cc)
  programs+=("${name//-/_}")
done
for source in "$root"/examples/*.cc; do
  programs+=("$(basename "$source" .cc)")
done
unset LD_LIBRARY_PATH
for program in "${programs[@]}"; do
  [ -x "$prefix/bin/$program" ] || fail "bin/$program was not installed"
  if ! "$prefix/bin/$program" --help > "$work/help.txt" 2>&1; then
    cat "$work/help.txt" >&2
    fail "bin/$program --help failed (exit status above)"
  fi
  grep -qi "usage\|program options\|--" "$work/help.txt" || fail "bin/$program --help printed no usage"
done
echo "install-test: ${#programs[@]} installed programs start: ${programs[*]}"

# A tiny job from the installed tools alone: a 4-rank all-reduce of 1 MiB on 2 hosts x 2 GPUs.
"$prefix/bin/chakra_generator" --workload collective --collective all_reduce --ranks 4 \
  --size 1MiB --output-prefix "$work/ar" > "$work/generate.txt" 2>&1 ||
  { cat "$work/generate.txt" >&2; fail "the installed chakra_generator failed"; }
"$prefix/bin/chakra_et_info" "$work/ar.0.et" > "$work/info.txt" 2>&1 ||
  { cat "$work/info.txt" >&2; fail "the installed chakra_et_info failed"; }
"$prefix/bin/chakra_check_ranks" "$work/ar" > "$work/check.txt" 2>&1 ||
  { cat "$work/check.txt" >&2; fail "the installed chakra_check_ranks failed"; }
"$prefix/bin/chakra-cluster" --trace="$work/ar" --hosts=2 --gpus-per-host=2 > "$work/run.txt" 2>&1 ||
  { cat "$work/run.txt" >&2; fail "the installed chakra-cluster failed"; }
grep -q "finished 4/4" "$work/run.txt" || { cat "$work/run.txt" >&2; fail "not every rank finished"; }
echo "install-test: installed chakra_generator + chakra-cluster: $(grep "iteration time" "$work/run.txt")"

generator=()
command -v ninja >/dev/null 2>&1 && generator=(-G Ninja)
cmake -S "$source_dir" -B "$work/consumer" "${generator[@]}" -DCMAKE_BUILD_TYPE=Release \
      -DCMAKE_PREFIX_PATH="$prefix" >"$work/configure.log" 2>&1 ||
  { cat "$work/configure.log" >&2; exit 1; }
cmake --build "$work/consumer" >"$work/build.log" 2>&1 || { cat "$work/build.log" >&2; exit 1; }
output=$(LD_LIBRARY_PATH="$prefix/lib" "$work/consumer/consumer")
echo "$output"
case "$output" in
  *"consumer ok"*) ;;
  *) fail "the consumer did not run as expected" ;;
esac
