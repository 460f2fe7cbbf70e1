#!/usr/bin/env bash
# Builds ns-3 3.37 with MPI (distributed simulation) and this module in-tree, into a cache
# directory that later runs reuse: a second run copies the module's changed files and rebuilds
# only them (seconds when nothing changed).
#
#   scripts/build-ns3-mpi.sh            build (or bring up to date), then print the program dir
#   scripts/build-ns3-mpi.sh --check    exit 0 if a finished build is in the cache, 1 otherwise
#                                       (nothing is built or installed; CI uses it to decide)
#   scripts/build-ns3-mpi.sh --bin-dir  print the program dir of the cached build (no build)
#
# Environment:
#   CHAKRA_NS3_MPI_CACHE  the cache directory (default ~/.cache/chakra-ns3-mpi, i.e.
#                         $XDG_CACHE_HOME/chakra-ns3-mpi when XDG_CACHE_HOME is set)
#   JOBS                  build jobs (default 2)
#
# Why from source: Debian's ns-3 is built with --disable-mpi (no libns3-mpi, no
# mpi-interface.h). The source is Debian's own source package of the same ns-3 (3.37), fetched
# with a private apt list (the system's apt configuration is not touched), configured with
# --enable-mpi against Debian's Open MPI (libopenmpi-dev, openmpi-bin). Only the ns-3 modules
# this module needs are built, plus mpi.
#
# First run: ~40 MB download, ~20-25 minutes and ~1 GB on 2 cores (run it with nice; it is
# not run under the shared build lock: it never touches the standalone build/ directory).
set -euo pipefail

repo=$(cd "$(dirname "$0")/.." && pwd)
cache=${CHAKRA_NS3_MPI_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/chakra-ns3-mpi}
jobs=${JOBS:-2}
tree=$cache/ns3-3.37/ns-3.37
bin_dir=$tree/build/contrib/chakra
ready=$cache/ready

case "${1:-}" in
  --check)
    [ -f "$ready" ] && [ -x "$bin_dir/chakra-cluster" ] && command -v mpirun >/dev/null 2>&1
    exit $?
    ;;
  --bin-dir)
    echo "$bin_dir"
    exit 0
    ;;
  "") ;;
  *)
    echo "usage: $0 [--check | --bin-dir]" >&2
    exit 2
    ;;
esac

# ---- packages: what the module needs, plus the source tools and Open MPI
"$repo/scripts/install-deps.sh"
need=()
for package in dpkg-dev libopenmpi-dev openmpi-bin; do
  if ! dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q "install ok installed"; then
    need+=("$package")
  fi
done
if [ ${#need[@]} -gt 0 ]; then
  if [ "$(id -u)" -ne 0 ]; then
    echo "missing Debian packages: ${need[*]} (sudo apt-get install -y ${need[*]})" >&2
    exit 1
  fi
  export DEBIAN_FRONTEND=noninteractive
  apt-get install -y -q --no-install-recommends "${need[@]}" ||
    { apt-get update -q && apt-get install -y -q --no-install-recommends "${need[@]}"; }
fi

mkdir -p "$cache"
# One build at a time per cache (two would write the same tree).
exec 9>"$cache/.lock"
flock 9

# ---- the ns-3 source (Debian's source package), once
if [ ! -x "$tree/ns3" ]; then
  echo "== fetching Debian's ns-3 3.37 source package into $cache"
  rm -rf "$cache/ns3-3.37" "$cache/apt"
  mkdir -p "$cache/apt/lists/partial"
  echo "deb-src http://deb.debian.org/debian bookworm main" > "$cache/apt/sources.list"
  apt_opts=(-o Dir::Etc::sourcelist="$cache/apt/sources.list" -o Dir::Etc::sourceparts=-
            -o Dir::State::lists="$cache/apt/lists")
  apt-get "${apt_opts[@]}" update -q
  (cd "$cache" && apt-get "${apt_opts[@]}" source ns3)
  rm -f "$cache"/ns3_*.orig*.tar.* "$cache"/ns3_*.debian.tar.* "$cache"/ns3_*.dsc
  [ -x "$tree/ns3" ] || { echo "no ns-3 tree at $tree after apt-get source" >&2; exit 1; }
fi

# ---- ns-3's MPI interfaces receive each packet into a buffer of 2000 bytes (MAX_MPI_MSG_SIZE):
# enough for 1500-byte Ethernet frames, not for this module's jumbo (9000 B) NIC frames, whose
# payload ns-3's TCP materializes when it joins the message header and the payload, nor for
# NVLink's 65000 B packets (MPI_ERR_TRUNCATE). Raised to 128 KiB, once (no rebuild afterwards).
for file in src/mpi/model/granted-time-window-mpi-interface.h src/mpi/model/null-message-mpi-interface.cc; do
  if grep -q "MAX_MPI_MSG_SIZE = 2000;" "$tree/$file"; then
    sed -i 's/MAX_MPI_MSG_SIZE = 2000;/MAX_MPI_MSG_SIZE = 131072;/' "$tree/$file"
  fi
done

# ---- the module, as contrib/chakra: only files whose content changed are copied, so that the
# build recompiles only them; files gone from the repository are removed.
echo "== syncing the module into $tree/contrib/chakra"
module=$tree/contrib/chakra
mkdir -p "$module"
list=$(mktemp)
trap 'rm -f "$list"' EXIT
(cd "$repo" && git ls-files -z --cached --others --exclude-standard) > "$list"
changed=0
while IFS= read -r -d '' file; do
  [ -f "$repo/$file" ] || continue # deleted in the work tree, still in the index
  if ! cmp -s "$repo/$file" "$module/$file"; then
    mkdir -p "$(dirname "$module/$file")"
    cp "$repo/$file" "$module/$file"
    changed=$((changed + 1))
  fi
done < "$list"
removed=0
while IFS= read -r -d '' file; do
  relative=${file#"$module"/}
  if ! grep -qzxF -- "$relative" "$list"; then
    rm -f "$file"
    removed=$((removed + 1))
  fi
done < <(find "$module" -type f -print0)
echo "   $changed file(s) copied, $removed removed"

# ---- ns-3's configure writes one stub per public header, build/include/ns3/<name>.h, holding an
# #include of the header's path in the module, and never rewrites a stub that exists: after a
# header moves to another folder of the module its stub still names the old path and the build
# fails ("No such file or directory"). Stubs whose target is gone are removed and configure is
# run again, which writes them with the new paths.
stale=0
for stub in "$tree"/build/include/ns3/*.h; do
  [ -f "$stub" ] || continue
  target=$(sed -n 's/^#include "\(.*\)"$/\1/p' "$stub" | head -n 1)
  case "$target" in
    "$module"/*)
      if [ ! -f "$target" ]; then
        rm -f "$stub"
        stale=$((stale + 1))
      fi
      ;;
  esac
done
if [ "$stale" -gt 0 ]; then
  echo "   $stale header stub(s) named moved or removed headers: removed, configuring again"
  rm -f "$cache/configured"
fi

# ---- configure once (changing these options later rebuilds most of ns-3)
options="-d release --enable-logs --enable-mpi --enable-examples --enable-modules=chakra,mpi --filter-module-examples-and-tests=chakra -G Ninja"
cd "$tree"
if [ ! -f cmake-cache/build.ninja ] || [ "$(cat "$cache/configured" 2>/dev/null)" != "$options" ]; then
  echo "== configuring ns-3: $options"
  rm -f "$ready"
  # shellcheck disable=SC2086
  ./ns3 configure $options
  grep -q "NS3_MPI:BOOL=ON" cmake-cache/CMakeCache.txt ||
    { echo "ns-3 was configured without MPI (is libopenmpi-dev installed?)" >&2; exit 1; }
  echo "$options" > "$cache/configured"
fi

# ---- build: ns-3's libraries, then the module, its tools and example (target chakra-all) and
# the MPI test programs
start=$(date +%s)
echo "== building with $jobs job(s)"
nice cmake --build cmake-cache -j "$jobs" --target chakra-all
echo "   build took $(( $(date +%s) - start )) s"
[ -x "$bin_dir/chakra-cluster" ] || { echo "no $bin_dir/chakra-cluster after the build" >&2; exit 1; }
date -u +%FT%TZ > "$ready"
echo "$bin_dir"
