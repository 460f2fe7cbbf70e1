#!/usr/bin/env bash
# "make test-sanitize": the module and the whole test suite built with AddressSanitizer,
# UndefinedBehaviorSanitizer and LeakSanitizer (gcc, in build-sanitize/), run through CTest.
# Any sanitizer report fails the test that triggered it (-fno-sanitize-recover, halt_on_error).
#
# CHAKRA_QUICK=1 (the default here; 0 for the full sizes) gives the long simulation tests a
# smaller size set, so that build and run fit in CI (doc/reliability.md has the timings).
# Benchmarks are not built.
#
# The test programs' own code is not instrumented (see below), so it is not compiled twice: the
# test programs are linked from the plain build's object files (TEST_OBJECTS_FROM, default
# build/, which "make test-sanitize" configures; brought up to date here first) against this
# build's instrumented library. TEST_OBJECTS_FROM= (empty) compiles them here instead.
#
# Variables: SANITIZE_BUILD_DIR (build-sanitize), TEST_OBJECTS_FROM (build), JOBS (2),
# CHAKRA_QUICK (1), CTEST_ARGS (extra ctest arguments, e.g. "-R et-").
set -euo pipefail
cd "$(dirname "$0")/.."

build=${SANITIZE_BUILD_DIR:-build-sanitize}
jobs=${JOBS:-2}
export CHAKRA_QUICK=${CHAKRA_QUICK:-1}

objects_from=${TEST_OBJECTS_FROM-build}
if [ -n "$objects_from" ]; then
  if [ ! -f "$objects_from/build.ninja" ]; then
    echo "test-sanitize: TEST_OBJECTS_FROM=$objects_from is not a configured build tree" \
         "(run \"make configure\" first, or set TEST_OBJECTS_FROM= to compile the tests here)" >&2
    exit 1
  fi
  objects_from=$(cd "$objects_from" && pwd)
  ninja -C "$objects_from" build.ninja > /dev/null
  plain_tests=$(ninja -C "$objects_from" -t targets all | sed -n 's/^\(test\/[^:]*\): .*/\1/p' | sort -u)
  start=$(date +%s)
  cmake --build "$objects_from" -j "$jobs" --target $plain_tests
  echo "== plain test programs (their objects are linked here): $(( $(date +%s) - start )) s"
fi

sanitize="-fsanitize=address,undefined -fno-sanitize-recover=undefined"
if [ ! -f "$build/build.ninja" ]; then
  # -Og -g1: sanitizer builds compile much slower than plain ones. -Og halves the library's
  # compile time against -O1 (topology-file.cc: 8.0 s against 17.7 s of CPU with the
  # sanitizers), still optimizes enough for the run, and line tables keep the reports readable.
  # -Wno-maybe-uninitialized: with -fsanitize=address gcc 12 reports libstdc++'s own std::regex
  # (std::function moves in regex_automaton.h) as maybe uninitialized, a known false positive
  # of that warning under the sanitizers; the normal build keeps the warning.
  # CHAKRA_TEST_CXX_FLAGS: the test programs' own code is compiled without instrumentation
  # (-fno-sanitize=all after the build type's flags) and linked with the sanitizer runtime, so
  # every library, tool and example access they drive is checked, while the drivers themselves
  # compile in half the time (converter-test.cc: 32 s of CPU instrumented at -O0, 16 s not) and
  # their reference computations run at plain speed. -Og, as in the plain build.
  cmake -S . -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Sanitize \
    "-DCHAKRA_TEST_OBJECTS_FROM=$objects_from" \
    "-DCHAKRA_TEST_CXX_FLAGS=-Og -fno-sanitize=all" \
    "-DCMAKE_CXX_FLAGS_SANITIZE=-Og -g1 -fno-omit-frame-pointer -Wno-maybe-uninitialized $sanitize" \
    "-DCMAKE_EXE_LINKER_FLAGS_SANITIZE=$sanitize" "-DCMAKE_SHARED_LINKER_FLAGS_SANITIZE=$sanitize"
elif [ "$(sed -n 's/^CHAKRA_TEST_OBJECTS_FROM:PATH=//p' "$build/CMakeCache.txt")" != "$objects_from" ]; then
  cmake -S . -B "$build" "-DCHAKRA_TEST_OBJECTS_FROM=$objects_from" > /dev/null
fi
# Everything the tests run: the test programs, the tools and the example (not the benchmarks).
# A build directory from before a CMakeLists.txt change lists the old targets: regenerate first,
# or tests added since are "Not Run" (their programs never built).
ninja -C "$build" build.ninja > /dev/null
targets=$(ninja -C "$build" -t targets all | sed -n 's/^\(\(test\|bin\)\/[^:]*\): .*/\1/p' | sort -u)
start=$(date +%s)
cmake --build "$build" -j "$jobs" --target $targets
echo "== sanitizer build: $(( $(date +%s) - start )) s"

# Shorter allocation stacks (8 frames, not 30) halve the time of the packet-heavy simulation
# tests (ns-3 allocates per packet); reports stay readable.
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:malloc_context_size=8:quarantine_size_mb=64:strict_string_checks=1}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}
export LSAN_OPTIONS=${LSAN_OPTIONS:-suppressions=$PWD/test/sanitizer/lsan.supp:print_suppressions=0}
# CTest starts the tests it knows to be long first; in a fresh build directory it knows nothing
# and started the longest (collectives-test, ~11 of the ~16 minutes under load) 18th, so that
# it ran alone at the end. test/sanitizer/ctest-costs.txt: seconds measured under the
# sanitizers (CTest's own cost file format), used until CTest has measured this build.
costs="$build/Testing/Temporary/CTestCostData.txt"
if [ ! -f "$costs" ]; then
  mkdir -p "$(dirname "$costs")"
  cp test/sanitizer/ctest-costs.txt "$costs"
fi
start=$(date +%s)
set +e
# Not chakra-bench-args: the benchmarks are not built here (it runs in "make test").
# Not chakra-install: it builds an outside project without the sanitizers against the installed
# library, which cannot link an instrumented one (it runs in the plain build, "make test").
ctest --test-dir "$build" --output-on-failure -j "$jobs" -E '^(chakra-install|chakra-bench-args)$' \
  ${CTEST_ARGS:-}
code=$?
set -e
echo "== sanitizer tests (CHAKRA_QUICK=$CHAKRA_QUICK): $(( $(date +%s) - start )) s"
exit $code
