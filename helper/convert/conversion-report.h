/*
 * ConversionReport: what one trace conversion did (counts and warnings), and its printed form.
 */
#ifndef CHAKRA_CONVERSION_REPORT_H
#define CHAKRA_CONVERSION_REPORT_H

#include <cstdint>
#include <map>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

namespace ns3
{

/** \ingroup chakra-converter \brief What a conversion did: counts and warnings. */
struct ConversionReport
{
    std::string input;                           //!< input trace
    std::string output;                          //!< output .et
    std::string schema;                          //!< input schema
    bool linked{false};                          //!< the input had a trace_link object
    std::optional<int64_t> rank;                 //!< global rank used
    std::optional<int64_t> worldSize;            //!< world size used
    uint64_t inputNodes{0};                      //!< nodes read
    uint64_t outputNodes{0};                     //!< nodes written
    uint64_t cpuOps{0};                          //!< host COMP nodes
    uint64_t gpuOps{0};                          //!< GPU COMP nodes
    uint64_t metadataNodes{0};                   //!< METADATA nodes
    uint64_t droppedRoots{0};                    //!< profiler thread/process roots left out
    std::map<std::string, uint64_t> collectives; //!< COMM_COLL nodes by comm_type name
    uint64_t sends{0};                           //!< COMM_SEND nodes
    uint64_t recvs{0};                           //!< COMM_RECV nodes
    uint64_t commFromKernels{0};                 //!< comm nodes that are NCCL kernels
    uint64_t commFromHostOps{0};                 //!< comm nodes that are host ops
    uint64_t commBytes{0};                       //!< sum of comm_size
    uint64_t dataDeps{0};                        //!< data dependency edges written
    uint64_t ctrlDeps{0};                        //!< control dependency edges written
    uint64_t droppedReferences{0};               //!< references to nodes not in the output
    uint64_t movedSyncDeps{0};                   //!< sync deps moved to the next host op
    uint64_t sizeMismatches{0};                  //!< comm_size != in_msg_nelems x dtype size
    std::string commGroupFile;                   //!< ASTRA-sim form: communicators written
    std::vector<std::string> warnings;           //!< what looked wrong (first 100)
    uint64_t warningCount{0};                    //!< all warnings, including those not kept

    /** Warnings kept in the report (the rest are only counted). */
    static constexpr std::size_t kMaxWarnings = 100;

    /** \return the total number of COMM_COLL nodes */
    uint64_t GetCollectiveCount() const;
    /** Counts a warning, and keeps its text while fewer than kMaxWarnings are kept. */
    void AddWarning(const std::string& what);
};

/** Prints a report as a few lines ("key: value"), warnings last. */
std::ostream& operator<<(std::ostream& os, const ConversionReport& report);

} // namespace ns3

#endif // CHAKRA_CONVERSION_REPORT_H
