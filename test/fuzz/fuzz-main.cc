/*
 * One libFuzzer program per entry point of fuzz-targets.h: CHAKRA_FUZZ_ENTRY names the entry
 * point (CMakeLists.txt builds fuzz-<name> for each with -DCHAKRA_FUZZ=ON and clang; see
 * scripts/fuzz.sh and doc/reliability.md).
 */
#include "fuzz-targets.h"

extern "C" int
LLVMFuzzerTestOneInput(const uint8_t* data, std::size_t size)
{
    return chakra_fuzz::CHAKRA_FUZZ_ENTRY(data, size);
}
