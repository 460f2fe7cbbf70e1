/*
 * The fuzz entry points: one per input format, shared by the libFuzzer programs (make fuzz)
 * and by the regression test that replays every crasher ever found (make test).
 */
#ifndef CHAKRA_FUZZ_TARGETS_H
#define CHAKRA_FUZZ_TARGETS_H

#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace chakra_fuzz
{

/**
 * Feeds one input to a reader and checks the reader's contract: the input is accepted, or
 * refused with one TraceError that names the file. Anything else (another exception, an error
 * that names no file, an accepted input whose output does not read back the same) is a
 * violation, reported through the handler set with SetViolationHandler (default: print and
 * abort, which libFuzzer records as a crash).
 * \return 0 (what libFuzzer expects)
 */
using Target = int (*)(const uint8_t* data, std::size_t size);

int FuzzEtStream(const uint8_t* data,
                 std::size_t size); //!< .et reader, feeder, summary, JSON round trip
int FuzzHostTrace(const uint8_t* data,
                  std::size_t size); //!< host execution trace: linker's reader, then linked
int FuzzKinetoTrace(const uint8_t* data, std::size_t size); //!< Kineto trace: reader, then linked
int FuzzLinkedTrace(const uint8_t* data,
                    std::size_t size);                 //!< linked (or host) trace: converter to .et
int FuzzEtJson(const uint8_t* data, std::size_t size); //!< JSON form -> .et, and back
int FuzzProcessGroups(const uint8_t* data, std::size_t size); //!< process-group text parser

/** A named entry point (the name is the corpus folder test/fuzz/corpus/<name>). */
struct NamedTarget
{
    const char* name; //!< et_stream, host_trace, ...
    Target run;       //!< the entry point
};

/** \return every entry point */
const std::vector<NamedTarget>& AllTargets();

/** Replaces what happens on a violation (the regression test throws instead of aborting). */
void SetViolationHandler(std::function<void(const std::string&)> handler);

} // namespace chakra_fuzz

#endif // CHAKRA_FUZZ_TARGETS_H
