/*
 * The device side of a linking job: a Kineto (PyTorch profiler) Chrome trace, or the legacy
 * autograd-profiler list, reduced to the few fields the linker needs.
 */
#ifndef CHAKRA_KINETO_TRACE_H
#define CHAKRA_KINETO_TRACE_H

#include <cstdint>
#include <limits>
#include <nlohmann/json.hpp>
#include <string>
#include <unordered_map>
#include <vector>

namespace ns3
{

/** Times inside the linker: integer nanoseconds (Kineto gives microseconds, maybe fractional). */
using TimeNs = int64_t;

/** Marks an absent integer field (External id, correlation, stream, ...). */
constexpr int64_t kKinetoNone = std::numeric_limits<int64_t>::min();

/**
 * \ingroup chakra-linker
 * \brief A host-side operator of the device trace (`cpu_op` or `user_annotation`; every `X`
 * event of the legacy list).
 */
struct KinetoCpuOp
{
    uint32_t name{0};                //!< index in the trace's name table
    uint32_t thread{0};              //!< index in the trace's thread table
    TimeNs ts{0};                    //!< start
    TimeNs dur{0};                   //!< duration
    int64_t externalId{kKinetoNone}; //!< args."External id"
    int64_t rfId{kKinetoNone};       //!< args."Record function id" (newer PyTorch)
    int64_t seqNr{kKinetoNone};      //!< args."Sequence number"
    int64_t order{0};   //!< tie-break of equal starts: External id, else Ev Idx, else file index
    int32_t parent{-1}; //!< enclosing op on the same thread (index in GetCpuOps)

    /** \return the end time */
    TimeNs End() const
    {
        return ts + dur;
    }
};

/** \ingroup chakra-linker \brief A CUDA/HIP runtime or driver API call (a possible launcher). */
struct KinetoRuntimeCall
{
    uint32_t name{0};                 //!< index in the name table
    uint32_t thread{0};               //!< index in the thread table
    TimeNs ts{0};                     //!< start
    TimeNs dur{0};                    //!< duration
    int64_t correlation{kKinetoNone}; //!< args.correlation
    int64_t externalId{kKinetoNone};  //!< args."External id"
    int64_t stream{kKinetoNone};      //!< args.stream, when the call names one

    /** \return the end time */
    TimeNs End() const
    {
        return ts + dur;
    }
};

/** \ingroup chakra-linker \brief Kinds of device operations. */
enum class GpuOpKind
{
    KERNEL,
    MEMCPY,
    MEMSET
};

/** \return "kernel", "gpu_memcpy" or "gpu_memset" */
const char* GpuOpKindName(GpuOpKind kind);

/** \ingroup chakra-linker \brief A device operation: kernel, memcpy or memset. */
struct KinetoGpuOp
{
    uint32_t name{0};                  //!< index in the name table
    GpuOpKind kind{GpuOpKind::KERNEL}; //!< what it is
    TimeNs ts{0};                      //!< start on the device
    TimeNs dur{0};                     //!< duration
    int64_t correlation{kKinetoNone};  //!< args.correlation (its launcher's)
    int64_t stream{kKinetoNone};       //!< args.stream
    int64_t device{kKinetoNone};       //!< args.device
    std::string processGroup;          //!< args."Process Group Name" ("" if absent)
    uint64_t fileIndex{0};             //!< position among the trace's events

    /** \return the end time */
    TimeNs End() const
    {
        return ts + dur;
    }
};

class KinetoEventReader;

/**
 * \ingroup chakra-linker
 * \brief A Kineto device trace (Chrome trace JSON, plain or gzip'd) or a legacy
 * autograd-profiler trace (a bare JSON list of `X` events), read by streaming.
 *
 * Only the events the linker needs are kept, in compact form: host operators, runtime/driver
 * calls and device operations. Everything else (flows, metadata, python stacks) is dropped while
 * parsing, so memory stays a small multiple of the number of events, not of the file size.
 * Host operators of each thread are sorted by start and nested (GetCpuOps()[i].parent).
 */
class KinetoTrace
{
  public:
    /** Name-table index of names that do not occur in the trace. */
    static constexpr uint32_t kNoName = std::numeric_limits<uint32_t>::max();

    /**
     * Reads a trace.
     * \param path the file (plain or gzip'd)
     * \throws TraceError naming the file (and the event) on malformed JSON, missing or mistyped
     * fields, or a trace without any host operator
     */
    explicit KinetoTrace(const std::string& path);

    /** \return the file */
    const std::string& GetPath() const;
    /** \return true for the legacy autograd-profiler list (no categories, no ids) */
    bool IsLegacy() const;
    /** \return true if host operators carry "Record function id" */
    bool HasRecordFunctionIds() const;

    /** \return the host operators, sorted by (thread, start, longer first, order) */
    const std::vector<KinetoCpuOp>& GetCpuOps() const;
    /** \return the runtime and driver calls that carry a correlation */
    const std::vector<KinetoRuntimeCall>& GetRuntimeCalls() const;
    /** \return the device operations, in file order */
    const std::vector<KinetoGpuOp>& GetGpuOps() const;
    /**
     * \param correlation a correlation id
     * \return the index in GetRuntimeCalls() of the call with that correlation, or -1
     */
    int64_t FindRuntimeCall(int64_t correlation) const;

    /** \return the number of threads that have host operators or runtime calls */
    uint32_t GetThreadCount() const;
    /** \return [first, last) indices in GetCpuOps() of one thread's operators */
    std::pair<uint32_t, uint32_t> GetThreadRange(uint32_t thread) const;
    /** \return the thread's id as the trace writes it ("24248", "\"CPU functions\"", ...) */
    const std::string& GetThreadLabel(uint32_t thread) const;

    /**
     * \param thread a thread index
     * \param t a time
     * \return the index in GetCpuOps() of the innermost operator of \p thread whose interval
     * [ts, ts + dur] contains \p t, or -1
     */
    int32_t FindInnermost(uint32_t thread, TimeNs t) const;

    /** \return the name with that index */
    const std::string& GetName(uint32_t name) const;
    /** \return the index of a name, or kNoName if no event has it */
    uint32_t FindName(const std::string& name) const;

    /** \return the integer pids of host-side events (empty for the legacy list) */
    const std::vector<int64_t>& GetHostPids() const;
    /** \return the top-level "distributedInfo" object (null if absent) */
    const nlohmann::json& GetDistributedInfo() const;
    /** \return the top-level "deviceProperties" list (GPU name, SMs, memory; null if absent) */
    const nlohmann::json& GetDeviceProperties() const;

  private:
    /** The shape of the document's top level. */
    enum class TopLevel
    {
        UNKNOWN, //!< not seen yet
        OBJECT,  //!< a Kineto trace: {"traceEvents": [...], ...}
        LIST     //!< the legacy list of the autograd profiler
    };

    /** Where the streaming parse is. */
    struct ParseState
    {
        TopLevel topKind{TopLevel::UNKNOWN}; //!< the top level
        std::string topKey;                  //!< the current key of a top-level object
        uint64_t eventIndex{0};              //!< events read so far
        bool sawEvents{false};               //!< a list of events was found
    };

    /**
     * Parses the file, turning each event into a record as the parser completes it.
     * \return the document without its events
     */
    nlohmann::json ParseEvents(ParseState& state);
    /** The parser's callback. \return whether the parser keeps \p parsed */
    bool OnParseEvent(ParseState& state,
                      int depth,
                      nlohmann::json::parse_event_t event,
                      nlohmann::json& parsed);
    /** Keeps "distributedInfo" and "deviceProperties" of a Kineto trace. */
    void KeepRunInfo(const nlohmann::json& skeleton);
    /** Turns one event object into a record, or drops it. */
    void AddEvent(const nlohmann::json& event, uint64_t index);
    /** Remembers the pid of a host event (which run the trace comes from). */
    void NoteHostPid(const nlohmann::json& event);
    /** Adds a host operator (cpu_op, user_annotation, or a legacy list's event). */
    void AddCpuOp(const KinetoEventReader& reader,
                  const std::string& name,
                  TimeNs ts,
                  TimeNs dur,
                  uint64_t index);
    /** Adds a runtime call that has a correlation (a launcher candidate). */
    void AddRuntimeCall(const KinetoEventReader& reader,
                        const std::string& name,
                        TimeNs ts,
                        TimeNs dur);
    /** Adds a kernel, memcpy or memset. */
    void AddGpuOp(const KinetoEventReader& reader,
                  GpuOpKind kind,
                  const std::string& name,
                  TimeNs ts,
                  TimeNs dur,
                  uint64_t index);
    /** Sorts the host operators and links each to its enclosing operator. */
    void BuildNesting();
    /** \return the index of a name, adding it */
    uint32_t InternName(const std::string& name);
    /** \return the index of a thread, adding it */
    uint32_t InternThread(const nlohmann::json& tid);

    std::string m_path;                            //!< the file
    bool m_legacy{false};                          //!< bare list of events
    bool m_sawCategory{false};                     //!< some event has a "cat"
    bool m_hasRfIds{false};                        //!< "Record function id" seen
    bool m_orderFromIds{true};                     //!< every op's order is a start-order counter
    std::vector<KinetoCpuOp> m_cpuOps;             //!< host operators
    std::vector<KinetoRuntimeCall> m_runtimeCalls; //!< launcher candidates
    std::vector<KinetoGpuOp> m_gpuOps;             //!< device operations
    std::unordered_map<int64_t, int64_t> m_byCorrelation;      //!< correlation -> runtime call
    std::vector<std::pair<uint32_t, uint32_t>> m_threadRanges; //!< per thread, in m_cpuOps
    std::vector<std::string> m_threadLabels;                   //!< thread ids as written
    std::unordered_map<std::string, uint32_t> m_threadIndex;   //!< label -> index
    std::vector<std::string> m_names;                          //!< name table
    std::unordered_map<std::string, uint32_t> m_nameIndex;     //!< name -> index
    std::vector<int64_t> m_hostPids;                           //!< distinct integer pids, sorted
    nlohmann::json m_distributedInfo;                          //!< "distributedInfo"
    nlohmann::json m_deviceProperties;                         //!< "deviceProperties"
};

} // namespace ns3

#endif // CHAKRA_KINETO_TRACE_H
