/*
 * Measured vs simulated: the measured run's per-rank iterations and collective calls on one
 * clock, and the comparison that chakra_replay prints (iteration, per rank, and per collective
 * with the wait for the last rank apart from the transfer).
 */
#ifndef CHAKRA_REPLAY_VALIDATION_H
#define CHAKRA_REPLAY_VALIDATION_H

#include "ns3/chakra-report.h"

#include <cstdint>
#include <map>
#include <optional>
#include <ostream>
#include <set>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

namespace ns3
{

/** \ingroup chakra-helper \brief One rank's measured iteration (Kineto clock, microseconds). */
struct MeasuredIteration
{
    std::string name;  //!< "ProfilerStep#10", or "" for the span of the linked ops
    double startUs{0}; //!< start on the rank's own clock
    double durUs{0};   //!< duration
};

/**
 * \ingroup chakra-helper
 * \brief The measured timings of a job's ranks, put on one clock.
 *
 * Each rank's collective calls are read from its .et (COMM_COLL nodes with start_time_micros,
 * numbered per process group in file order, as the simulator numbers them); the iterations come
 * from the linker. Align() decides how the ranks' clocks relate:
 * - if the calls' completions agree across ranks with the clocks as they are (median spread of
 *   the last members' ends at most kSharedClockToleranceUs), the ranks share a clock (Kineto's
 *   timestamps are wall-clock microseconds; ranks of one host agree);
 * - otherwise (the legacy profiler counts from each process's start; hosts' clocks differ) every
 *   rank's clock is shifted so that the calls it shares with the already placed ranks complete
 *   together (median over those calls): a collective ends on all members at about the same time.
 */
class MeasuredRun
{
  public:
    /** A collective's members agree on its end within this, when clocks are shared. */
    static constexpr double kSharedClockToleranceUs = 50;

    /** One rank's side of one measured collective call. */
    struct Side
    {
        double startUs{0};  //!< arrival: the kernel (or host op) started
        double endUs{0};    //!< completion on this rank
        uint64_t nodeId{0}; //!< the call's node in the rank's .et
    };

    /** One collective call as the ranks recorded it. */
    struct Call
    {
        std::string kind;               //!< ALL_REDUCE, ...
        uint64_t bytes{0};              //!< comm_size on the first rank that has it
        std::map<uint32_t, Side> sides; //!< by rank
    };

    /** \param rank a rank \param iteration its measured iteration */
    void SetIteration(uint32_t rank, const MeasuredIteration& iteration);
    /**
     * Reads the collective calls of one rank's .et (nodes without start_time_micros are
     * ignored).
     * \throws TraceError if the file cannot be read
     */
    void AddRankTrace(uint32_t rank, const std::string& etPath);
    /** Puts every rank on one clock (see the class description). */
    void Align();

    /** \return how the clocks were aligned, in words */
    const std::string& GetClockNote() const;
    /**
     * \return true if every rank's measured times are on one clock: the ranks shared one, or
     *         Align() placed each rank through collectives it shares with the others (false
     *         without collectives measured on two ranks, or with a rank that shares none)
     */
    bool HasCommonClock() const;
    /** \return the number of ranks with a measured iteration */
    std::size_t GetIterationCount() const;
    /** \return a rank's iteration with its start on the common clock, or nullptr */
    const MeasuredIteration* GetIteration(uint32_t rank) const;
    /** \return per rank: its iteration start minus the earliest start (0 if unknown) */
    std::vector<double> GetStartOffsetsUs(uint32_t ranks) const;
    /** \return earliest iteration start to latest iteration end (0 if none) */
    double GetSpanUs() const;
    /** \return true if some collective call has measured times */
    bool HasCalls() const;
    /** \return a call by process group and number on it, or nullptr */
    const Call* FindCall(const std::string& pg, uint64_t seq) const;
    /**
     * Rank-local delays: in a call whose members complete together (CompletesTogether), the
     * time a member ended after the first member did. The network had delivered by then, so
     * the rest is the rank's own (a worker thread that did not run, a late kernel end);
     * a replay adds it after the call (ChakraApplication::SetCallDelays). Call after Align().
     * \param rank a rank
     * \return its delays by node id, in microseconds (only those above 0)
     */
    std::unordered_map<uint64_t, double> GetCallDelaysUs(uint32_t rank) const;

  private:
    // Align's steps.
    /** \return the ranks with a measured iteration or call */
    std::set<uint32_t> GetRanks() const;
    /** \return per call on two ranks or more: last member's end - first member's, as recorded */
    std::vector<double> GetEndSpreadsUs() const;
    /**
     * Sets each rank's clock offset from the calls it shares with the ranks placed before it.
     * \return the number of ranks that share no call with the others (their clocks kept)
     */
    std::size_t PlaceClocks(const std::set<uint32_t>& ranks);
    /** Moves the iterations and calls onto the common clock (the offsets PlaceClocks set). */
    void ShiftToCommonClock();

    std::map<uint32_t, MeasuredIteration> m_iterations;       //!< by rank, own clock
    std::map<std::pair<std::string, uint64_t>, Call> m_calls; //!< by (pg, seq)
    std::map<uint32_t, double> m_clockOffsetUs;               //!< rank clock - common
    std::map<uint32_t, MeasuredIteration> m_aligned;          //!< common clock
    std::string m_clockNote{"no measured timings"};
    bool m_commonClock{false}; //!< see HasCommonClock
};

/**
 * \ingroup chakra-helper
 * \brief Arrival skew, transfer and rank-local delay of one collective call: skew = last
 * arrival - first arrival (the wait for the last rank); transfer = completion - last arrival;
 * local = last member's end - completion. The completion of a call whose members complete
 * together (all-reduce, all-gather, reduce-scatter, all-to-all, barrier) is its first member's
 * end: a member that ends later was held up by itself, not by the network. For the others
 * (broadcast, reduce, gather, scatter: the root and the leaves legitimately end apart) it is
 * the last member's end, and local is 0.
 */
struct CallTiming
{
    double skewUs{0};     //!< last arrival - first arrival
    double transferUs{0}; //!< completion - last arrival
    double localUs{0};    //!< last member's end - completion
    double spanUs{0};     //!< last member's end - first arrival
};

/** \return true if every member of a call of this kind (ALL_REDUCE, ...) completes together */
bool CompletesTogether(const std::string& kind);

/**
 * \param sides the members' (start, end), in microseconds
 * \param together the members complete together (CompletesTogether)
 * \return the timing of the call
 */
CallTiming TimeCall(const std::vector<std::pair<double, double>>& sides, bool together = true);

/**
 * \ingroup chakra-helper
 * \brief The simulated run beside the measured one.
 */
struct ReplayValidation
{
    bool measuredOffsets{false};        //!< ranks started at their measured offsets
    std::string startNote;              //!< why the ranks started so ("" if not said)
    std::string clockNote;              //!< how the measured clocks were aligned
    std::vector<double> startOffsetsUs; //!< measured start offset of each rank
    /** Measured iteration: the longest rank's, or with measured offsets, first start to last
     *  end. 0: none. */
    double measuredIterationUs{0};
    std::string measuredIterationName;   //!< "ProfilerStep#10", or "" for the span
    double simulatedIterationUs{0};      //!< latest rank finish (common start)
    std::vector<double> measuredRankUs;  //!< measured iteration of each rank (0: unknown)
    std::vector<double> simulatedRankUs; //!< simulated finish - the rank's start offset

    /** One collective call, simulated beside measured. */
    struct Collective
    {
        std::string kind;
        std::string pg;
        uint64_t seq{0};
        uint64_t bytes{0};
        uint32_t members{0};
        CallTiming simulated;
        std::optional<CallTiming> measured; //!< absent: no measured times
    };

    std::vector<Collective> collectives;

    /** The collectives' software cost, when calibrated from the measured calls. */
    struct Calibration
    {
        std::string cost;                     //!< the fitted cost, in words
        std::optional<double> iterationError; //!< the iteration error without it
        std::vector<double> simulatedRankUs;  //!< each rank without it
    };

    std::optional<Calibration> calibration; //!< absent: not calibrated
    /** Replayed rank-local delays after collectives (MeasuredRun::GetCallDelaysUs), per
     *  rank: total microseconds and calls. Empty: none replayed. */
    std::vector<std::pair<double, uint32_t>> callDelays;

    /** \return (simulated - measured) / measured for the iteration, or nullopt */
    std::optional<double> IterationError() const;
    /** Prints the comparison. */
    void Print(std::ostream& os, std::size_t maxRows = 20) const;
    /** Writes validation.csv. \throws TraceError on a write error */
    void WriteCsv(const std::string& path) const;

  private:
    // Print's parts, in the order they are printed (they share the stream's flags).
    /** The iteration, simulated beside measured, and how the ranks started. */
    void PrintIteration(std::ostream& os) const;
    /** Each rank's iteration, simulated / measured. */
    void PrintRanks(std::ostream& os) const;
    /** The fitted collective software cost and the errors without it. */
    void PrintCalibration(std::ostream& os) const;
    /** The rank-local delays replayed after collectives. */
    void PrintCallDelays(std::ostream& os) const;
    /** The collectives' table (at most \p maxRows rows). */
    void PrintCollectives(std::ostream& os, std::size_t maxRows) const;
};

/**
 * \ingroup chakra-helper
 * \brief Compares a simulated run with the measurement.
 * \param report the simulated run
 * \param measured the measured run (aligned)
 * \param measuredOffsets true if the ranks started at their measured offsets
 * \param offsetsUs the start offset each rank was given (empty: none)
 * \return the comparison
 */
ReplayValidation CompareWithMeasurement(const ChakraReport& report,
                                        const MeasuredRun& measured,
                                        bool measuredOffsets,
                                        const std::vector<double>& offsetsUs);

} // namespace ns3

#endif // CHAKRA_REPLAY_VALIDATION_H
