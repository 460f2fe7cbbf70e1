#!/usr/bin/env bash
# Installs the Debian 12 packages this module needs to build and test, when they are missing.
# As root it installs them with apt-get; otherwise it prints the command to run and fails.
set -euo pipefail

packages=(
  g++ cmake ninja-build make pkg-config
  ns3 libns3-dev                      # ns-3 3.37; "ns3" provides files the CMake config names
  libprotobuf-dev protobuf-compiler   # .et schema
  nlohmann-json3-dev                  # JSON traces
  libyaml-cpp-dev                     # topology files (YAML/JSON, ASTRA-sim's network.yml)
  libboost-test-dev                   # tests
  libcli11-dev                        # the tools' command lines (CLI11, header-only)
  python3 gnuplot-nox                 # scripts/sweep.py and its plot
  python3-distributed                 # scripts/sweep.py --backend dask (Dask distributed)
  zlib1g-dev                          # gzip'd traces
  libjemalloc-dev                     # the programs' allocator (CMakeLists.txt: CHAKRA_JEMALLOC)
  clang-format                        # make format-check: ns-3's code style (.clang-format)
)

missing=()
for package in "${packages[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$package")
  fi
done

if [ ${#missing[@]} -eq 0 ]; then
  exit 0
fi

if [ "$(id -u)" -ne 0 ]; then
  echo "missing Debian packages: ${missing[*]}" >&2
  echo "install them with: sudo apt-get install -y ${missing[*]}" >&2
  exit 1
fi

echo "installing: ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
# Refresh the package lists only when an install from the current lists fails.
if ! apt-get install -y -q --no-install-recommends "${missing[@]}"; then
  apt-get update -q
  apt-get install -y -q --no-install-recommends "${missing[@]}"
fi
