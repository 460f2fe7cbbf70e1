/*
 * TraceConverter: a linked (or plain host) PyTorch trace -> one Chakra .et file for its rank.
 */
#ifndef CHAKRA_TRACE_CONVERTER_H
#define CHAKRA_TRACE_CONVERTER_H

#include "conversion-report.h"
#include "pytorch-trace.h"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace ns3
{

/** \ingroup chakra-converter \brief Settings of one conversion. */
struct ConversionOptions
{
    /** Global rank of the trace; default: the linked trace's trace_link.rank. Needed only
     *  for send/recv (their comm_src or comm_dst is this rank). */
    std::optional<int64_t> rank;
    /** Number of ranks of the job; default: trace_link.world_size, else the largest process
     *  group. Fills the rank list of a default group that lists none. */
    std::optional<int64_t> worldSize;
    /**
     * Write the trace as ASTRA-sim's workload layer reads it (see AstraSimCommGroupFile and
     * doc/converter.md): no METADATA node, pg_name a communicator number (sub-groups listed
     * in the comm-groups file beside the output), communication nodes is_cpu_op = false,
     * collectives other than all-reduce, all-gather, reduce-scatter and all-to-all refused.
     */
    bool astraSim{false};
};

/**
 * \ingroup chakra-converter
 * \param outputPath a converted trace, <prefix>.<rank>.et (or .et.gz, or any other .et name)
 * \return where the ASTRA-sim form's communicators go: <prefix>.comm-groups.json (the name
 *         chakra_generator --astra-sim writes and the simulator looks for), the same file for
 *         every rank of a job
 */
std::string AstraSimCommGroupFile(const std::string& outputPath);

/**
 * \ingroup chakra-converter
 * \brief Converts a PyTorch host trace, or a linked trace (doc/linked-trace.md), into a
 * Chakra .et trace for the simulator. The rules are in doc/converter.md.
 *
 * The output is written atomically (it appears only when complete) and is byte-for-byte
 * deterministic. Every error is a TraceError naming the file and the node.
 */
class TraceConverter
{
  public:
    /** \param options settings */
    explicit TraceConverter(ConversionOptions options = {});

    /**
     * Reads and converts a trace.
     * \param inputPath the linked or host trace JSON (plain or gzip'd)
     * \param outputPath the .et to write (gzip'd if it ends in .gz)
     * \return the report
     * \throws TraceError on bad input or a write error; no output file is left then
     */
    ConversionReport Convert(const std::string& inputPath, const std::string& outputPath) const;

    /**
     * Converts a trace already read.
     * \param trace the trace
     * \param outputPath the .et to write
     * \return the report
     * \throws TraceError on bad input or a write error; no output file is left then
     */
    ConversionReport Convert(const PyTorchTrace& trace, const std::string& outputPath) const;

  private:
    ConversionOptions m_options; //!< settings
};

} // namespace ns3

#endif // CHAKRA_TRACE_CONVERTER_H
