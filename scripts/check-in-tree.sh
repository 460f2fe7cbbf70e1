#!/usr/bin/env bash
# Builds this module inside an ns-3 3.37 source tree (as contrib/chakra) and runs its tests there.
#
# The ns-3 source comes from Debian's source package (apt-get source ns3), fetched with a private
# package list so that the system's apt configuration is not touched. Only the ns-3 modules this
# module needs are built (--enable-modules=chakra pulls in its dependencies).
#
#   scripts/check-in-tree.sh [work-dir]      (default /tmp/chakra-in-tree)
#
# Slow: ~20 minutes and ~1 GB on 2 cores for the first run; later runs rebuild only what changed.
# CI does not run it; run it when CMakeLists.txt or wscript change and record the result in
# doc/building.md.
set -euo pipefail

repo=$(cd "$(dirname "$0")/.." && pwd)
work=${1:-/tmp/chakra-in-tree}
jobs=${JOBS:-2}
mkdir -p "$work"

need=()
for tool in dpkg-source:dpkg-dev python3:python3; do
  command -v "${tool%%:*}" >/dev/null 2>&1 || need+=("${tool##*:}")
done
if [ ${#need[@]} -gt 0 ]; then
  if [ "$(id -u)" -ne 0 ]; then
    echo "missing: ${need[*]} (sudo apt-get install ${need[*]})" >&2
    exit 1
  fi
  DEBIAN_FRONTEND=noninteractive apt-get install -y -q "${need[@]}"
fi
"$repo/scripts/install-deps.sh"

tree=$(ls -d "$work"/ns3-3.37/ns-3.37 2>/dev/null || true)
if [ -z "$tree" ]; then
  echo "== fetching the ns-3 3.37 source package"
  mkdir -p "$work/apt/lists/partial"
  echo "deb-src http://deb.debian.org/debian bookworm main" > "$work/apt/sources.list"
  apt_opts=(-o Dir::Etc::sourcelist="$work/apt/sources.list" -o Dir::Etc::sourceparts=-
            -o Dir::State::lists="$work/apt/lists")
  apt-get "${apt_opts[@]}" update -q
  (cd "$work" && apt-get "${apt_opts[@]}" source ns3)
  tree=$work/ns3-3.37/ns-3.37
fi

echo "== copying the module into $tree/contrib/chakra"
mkdir -p "$tree/contrib/chakra"
# Everything tracked by git, nothing built: the copy is what a user would drop in.
(cd "$repo" && git ls-files -z --cached --others --exclude-standard) |
  (cd "$repo" && xargs -0 cp --parents -t "$tree/contrib/chakra")

# A user's scenario script goes in ns-3's own scratch/ folder: check that ours builds and runs there.
cp "$repo/scratch/chakra-two-node-scenario.cc" "$tree/scratch/"

cd "$tree"
echo "== configuring (examples and tests on, only the modules chakra needs)"
./ns3 configure -d release --enable-logs --enable-examples --enable-tests \
  --enable-modules=chakra --filter-module-examples-and-tests=chakra -G Ninja
echo "== building the module, its tools, examples and tests with $jobs jobs"
# Target chakra-all: a plain "./ns3 build" also links ns-3's own test-runner, which fails with a
# reduced module set (its tests need csma); and ./ns3 caps jobs at nproc - 1.
start=$(date +%s)
cmake --build cmake-cache -j "$jobs" --target chakra-all
echo "build took $(( $(date +%s) - start )) s"

echo "== building and running the scratch scenario (ns-3's scratch/ folder)"
cmake --build cmake-cache -j "$jobs" --target scratch_chakra-two-node-scenario
scratch_program=$(ls build/scratch/ns3.37-chakra-two-node-scenario* | head -n 1)
"$scratch_program" | grep "finished 2/2"

echo "== running the module's tests (CTest label chakra)"
export CHAKRA_TEST_DATA=${CHAKRA_TEST_DATA:-$repo/../shared/data}
(cd cmake-cache && ctest -L chakra --output-on-failure -j "$jobs")
echo "== in-tree check passed: $tree"
