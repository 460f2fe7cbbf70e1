#!/usr/bin/env bash
# Installs the built module into a temporary prefix ("cmake --install"), then configures, builds
# and runs test/external-project against that prefix: a project outside this tree that finds
# the package with find_package(chakra-ns3) and links ns3::libchakra.
#   test/install-test.sh BUILD_DIR
set -euo pipefail
build=$(cd "$1" && pwd)
source_dir=$(cd "$(dirname "$0")" && pwd)/external-project
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

cmake --install "$build" --prefix "$work/prefix" >/dev/null
for expected in include/ns3/chakra-module.h include/ns3/et_def.pb.h include/ns3/comm-transport.h \
                lib/cmake/chakra-ns3/chakra-ns3Config.cmake bin/chakra_converter; do
  if [ ! -e "$work/prefix/$expected" ]; then
    echo "install-test: $expected was not installed" >&2
    exit 1
  fi
done
generator=()
command -v ninja >/dev/null 2>&1 && generator=(-G Ninja)
cmake -S "$source_dir" -B "$work/consumer" "${generator[@]}" -DCMAKE_BUILD_TYPE=Release \
      -DCMAKE_PREFIX_PATH="$work/prefix" >"$work/configure.log" 2>&1 ||
  { cat "$work/configure.log" >&2; exit 1; }
cmake --build "$work/consumer" >"$work/build.log" 2>&1 || { cat "$work/build.log" >&2; exit 1; }
output=$(LD_LIBRARY_PATH="$work/prefix/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}" \
         "$work/consumer/consumer")
echo "$output"
case "$output" in
  *"consumer ok"*) ;;
  *) echo "install-test: the consumer did not run as expected" >&2; exit 1 ;;
esac
