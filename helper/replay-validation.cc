#include "replay-validation.h"

#include "ns3/et-node.h"
#include "ns3/et-reader.h"
#include "ns3/text-format.h"
#include "ns3/trace-error.h"
#include "ns3/trace-file.h"

#include <algorithm>
#include <cmath>
#include <deque>
#include <iomanip>
#include <limits>
#include <set>

namespace ns3
{

namespace
{

double
Median(std::vector<double> values)
{
    if (values.empty())
    {
        return 0;
    }
    std::sort(values.begin(), values.end());
    const std::size_t n = values.size();
    return n % 2 == 1 ? values[n / 2] : (values[n / 2 - 1] + values[n / 2]) / 2;
}

double
Micros(Time t)
{
    return static_cast<double>(t.GetNanoSeconds()) / 1e3;
}

std::string
Percent(double simulated, double measured)
{
    if (measured <= 0)
    {
        return "";
    }
    return FormatFixed((simulated - measured) / measured * 100, 1) + "%";
}

} // namespace

bool
CompletesTogether(const std::string& kind)
{
    return kind == "ALL_REDUCE" || kind == "ALL_GATHER" || kind == "REDUCE_SCATTER" ||
           kind == "REDUCE_SCATTER_BLOCK" || kind == "ALL_TO_ALL" || kind == "BARRIER";
}

CallTiming
TimeCall(const std::vector<std::pair<double, double>>& sides, bool together)
{
    CallTiming timing;
    if (sides.empty())
    {
        return timing;
    }
    double firstArrival = std::numeric_limits<double>::max();
    double lastArrival = std::numeric_limits<double>::lowest();
    double firstEnd = std::numeric_limits<double>::max();
    double lastEnd = std::numeric_limits<double>::lowest();
    for (const auto& [start, end] : sides)
    {
        firstArrival = std::min(firstArrival, start);
        lastArrival = std::max(lastArrival, start);
        firstEnd = std::min(firstEnd, end);
        lastEnd = std::max(lastEnd, end);
    }
    // A member cannot complete before the last one arrived: clocks that disagree a little
    // (aligned ranks) must not make the transfer negative.
    const double completion = std::max(together ? firstEnd : lastEnd, lastArrival);
    timing.skewUs = lastArrival - firstArrival;
    timing.transferUs = completion - lastArrival;
    timing.localUs = std::max(0.0, lastEnd - completion);
    timing.spanUs = lastEnd - firstArrival;
    return timing;
}

void
MeasuredRun::SetIteration(uint32_t rank, const MeasuredIteration& iteration)
{
    m_iterations[rank] = iteration;
}

void
MeasuredRun::AddRankTrace(uint32_t rank, const std::string& etPath)
{
    EtReader reader(etPath);
    std::map<std::string, uint64_t> nextSeq;
    ChakraProtoMsg::Node proto;
    while (reader.ReadNode(proto))
    {
        if (proto.type() != ChakraProtoMsg::COMM_COLL_NODE)
        {
            continue;
        }
        EtNode node(proto);
        const std::string pg = node.GetPgName();
        const uint64_t seq = nextSeq[pg]++;
        if (proto.start_time_micros() == 0)
        {
            continue; // no measured time (a host-only trace)
        }
        Call& call = m_calls[{pg, seq}];
        if (call.sides.empty())
        {
            auto type = node.GetCommType();
            call.kind = type ? CommTypeName(*type) : "UNKNOWN";
            call.bytes = node.GetCommSize();
        }
        Side side;
        side.nodeId = proto.id();
        side.startUs = static_cast<double>(proto.start_time_micros());
        side.endUs = side.startUs + node.GetDouble("duration_exact_micros",
                                                   static_cast<double>(proto.duration_micros()));
        call.sides[rank] = side;
    }
}

void
MeasuredRun::Align()
{
    m_clockOffsetUs.clear();
    const std::set<uint32_t> ranks = GetRanks();
    const std::vector<double> spreads = GetEndSpreadsUs();
    for (uint32_t rank : ranks)
    {
        m_clockOffsetUs[rank] = 0;
    }
    m_commonClock = true;
    if (ranks.size() < 2)
    {
        m_clockNote = "one rank: nothing to align";
    }
    else if (spreads.empty())
    {
        m_clockNote = "no collective with measured times on two ranks: clocks taken as they are";
        m_commonClock = false;
    }
    else if (Median(spreads) <= kSharedClockToleranceUs)
    {
        m_clockNote = "shared clock: with the timestamps as recorded, the members of a "
                      "collective finish within " +
                      FormatFixed(Median(spreads), 1) + " us of each other (median over " +
                      std::to_string(spreads.size()) + " calls)";
    }
    else
    {
        const std::size_t unplaced = PlaceClocks(ranks);
        m_clockNote = "separate clocks (collective ends differ by " +
                      FormatFixed(Median(spreads), 0) +
                      " us as recorded): each rank's clock shifted so that the collectives it "
                      "shares with rank " +
                      std::to_string(*ranks.begin()) +
                      " (directly or through other ranks) end together (median)";
        if (unplaced > 0)
        {
            m_clockNote += "; " + std::to_string(unplaced) +
                           " rank(s) share no collective with the others and keep their clock";
            m_commonClock = false;
        }
    }
    ShiftToCommonClock();
}

std::set<uint32_t>
MeasuredRun::GetRanks() const
{
    std::set<uint32_t> ranks;
    for (const auto& [rank, iteration] : m_iterations)
    {
        ranks.insert(rank);
    }
    for (const auto& [key, call] : m_calls)
    {
        for (const auto& [rank, side] : call.sides)
        {
            ranks.insert(rank);
        }
    }
    return ranks;
}

std::vector<double>
MeasuredRun::GetEndSpreadsUs() const
{
    std::vector<double> spreads;
    for (const auto& [key, call] : m_calls)
    {
        double first = std::numeric_limits<double>::max();
        double last = std::numeric_limits<double>::lowest();
        for (const auto& [rank, side] : call.sides)
        {
            first = std::min(first, side.endUs);
            last = std::max(last, side.endUs);
        }
        if (call.sides.size() >= 2)
        {
            spreads.push_back(last - first);
        }
    }
    return spreads;
}

std::size_t
MeasuredRun::PlaceClocks(const std::set<uint32_t>& ranks)
{
    // Place ranks one by one from the lowest, each against the ranks already placed.
    std::map<uint32_t, bool> placed;
    std::deque<uint32_t> queue{*ranks.begin()};
    placed[*ranks.begin()] = true;
    std::size_t unplaced = 0;
    while (!queue.empty() || placed.size() < ranks.size())
    {
        if (queue.empty())
        {
            // A rank sharing no call with the placed ones keeps its clock.
            for (uint32_t rank : ranks)
            {
                if (!placed.count(rank))
                {
                    placed[rank] = true;
                    queue.push_back(rank);
                    ++unplaced;
                    break;
                }
            }
        }
        const uint32_t anchor = queue.front();
        queue.pop_front();
        std::map<uint32_t, std::vector<double>> differences;
        for (const auto& [key, call] : m_calls)
        {
            auto a = call.sides.find(anchor);
            if (a == call.sides.end())
            {
                continue;
            }
            for (const auto& [rank, side] : call.sides)
            {
                if (!placed.count(rank))
                {
                    differences[rank].push_back(side.endUs - a->second.endUs);
                }
            }
        }
        for (const auto& [rank, values] : differences)
        {
            m_clockOffsetUs[rank] = m_clockOffsetUs[anchor] + Median(values);
            placed[rank] = true;
            queue.push_back(rank);
        }
    }
    return unplaced;
}

void
MeasuredRun::ShiftToCommonClock()
{
    m_aligned.clear();
    for (const auto& [rank, iteration] : m_iterations)
    {
        MeasuredIteration aligned = iteration;
        aligned.startUs -= m_clockOffsetUs[rank];
        m_aligned[rank] = aligned;
    }
    for (auto& [key, call] : m_calls)
    {
        for (auto& [rank, side] : call.sides)
        {
            side.startUs -= m_clockOffsetUs[rank];
            side.endUs -= m_clockOffsetUs[rank];
        }
    }
    m_clockOffsetUs.clear();
}

const std::string&
MeasuredRun::GetClockNote() const
{
    return m_clockNote;
}

bool
MeasuredRun::HasCommonClock() const
{
    return m_commonClock;
}

std::size_t
MeasuredRun::GetIterationCount() const
{
    return m_aligned.size();
}

const MeasuredIteration*
MeasuredRun::GetIteration(uint32_t rank) const
{
    auto it = m_aligned.find(rank);
    return it == m_aligned.end() ? nullptr : &it->second;
}

std::vector<double>
MeasuredRun::GetStartOffsetsUs(uint32_t ranks) const
{
    std::vector<double> offsets(ranks, 0.0);
    if (m_aligned.empty())
    {
        return offsets;
    }
    double earliest = std::numeric_limits<double>::max();
    for (const auto& [rank, iteration] : m_aligned)
    {
        earliest = std::min(earliest, iteration.startUs);
    }
    for (const auto& [rank, iteration] : m_aligned)
    {
        if (rank < ranks)
        {
            offsets[rank] = iteration.startUs - earliest;
        }
    }
    return offsets;
}

double
MeasuredRun::GetSpanUs() const
{
    if (m_aligned.empty())
    {
        return 0;
    }
    double earliest = std::numeric_limits<double>::max();
    double latest = std::numeric_limits<double>::lowest();
    for (const auto& [rank, iteration] : m_aligned)
    {
        earliest = std::min(earliest, iteration.startUs);
        latest = std::max(latest, iteration.startUs + iteration.durUs);
    }
    return latest - earliest;
}

bool
MeasuredRun::HasCalls() const
{
    return !m_calls.empty();
}

const MeasuredRun::Call*
MeasuredRun::FindCall(const std::string& pg, uint64_t seq) const
{
    auto it = m_calls.find({pg, seq});
    return it == m_calls.end() ? nullptr : &it->second;
}

std::unordered_map<uint64_t, double>
MeasuredRun::GetCallDelaysUs(uint32_t rank) const
{
    std::unordered_map<uint64_t, double> delays;
    for (const auto& [key, call] : m_calls)
    {
        auto mine = call.sides.find(rank);
        if (call.sides.size() < 2 || mine == call.sides.end() || !CompletesTogether(call.kind))
        {
            continue;
        }
        double firstEnd = std::numeric_limits<double>::max();
        double lastArrival = std::numeric_limits<double>::lowest();
        for (const auto& [member, side] : call.sides)
        {
            firstEnd = std::min(firstEnd, side.endUs);
            lastArrival = std::max(lastArrival, side.startUs);
        }
        // As TimeCall: the call completes at its first member's end, not before the last
        // arrival.
        const double delay = mine->second.endUs - std::max(firstEnd, lastArrival);
        if (delay > 0)
        {
            delays[mine->second.nodeId] = delay;
        }
    }
    return delays;
}

ReplayValidation
CompareWithMeasurement(const ChakraReport& report,
                       const MeasuredRun& measured,
                       bool measuredOffsets,
                       const std::vector<double>& offsetsUs)
{
    ReplayValidation v;
    const auto ranks = static_cast<uint32_t>(report.GetRanks().size());
    v.measuredOffsets = measuredOffsets;
    v.clockNote = measured.GetClockNote();
    v.startOffsetsUs = measured.GetStartOffsetsUs(ranks);
    v.simulatedIterationUs = Micros(report.GetIterationTime());
    for (const auto& rank : report.GetRanks())
    {
        const double offset = rank.rank < offsetsUs.size() ? offsetsUs[rank.rank] : 0.0;
        v.simulatedRankUs.push_back(Micros(rank.finishTime) - offset);
    }
    if (measured.GetIterationCount() > 0)
    {
        v.measuredRankUs.assign(ranks, 0.0);
        for (uint32_t r = 0; r < ranks; ++r)
        {
            if (const MeasuredIteration* it = measured.GetIteration(r))
            {
                v.measuredRankUs[r] = it->durUs;
                if (!measuredOffsets && it->durUs > v.measuredIterationUs)
                {
                    v.measuredIterationUs = it->durUs;
                    v.measuredIterationName = it->name;
                }
                if (v.measuredIterationName.empty())
                {
                    v.measuredIterationName = it->name;
                }
            }
        }
        if (measuredOffsets)
        {
            v.measuredIterationUs = measured.GetSpanUs();
        }
    }
    // Simulated calls: every member's record of (pg, seq).
    std::map<std::pair<std::string, uint64_t>, std::vector<const CommRecord*>> calls;
    for (const CommRecord& record : report.GetCommRecords())
    {
        if (record.kind != "SEND" && record.kind != "RECV")
        {
            calls[{record.pg, record.seq}].push_back(&record);
        }
    }
    for (const auto& [key, records] : calls)
    {
        ReplayValidation::Collective c;
        c.pg = key.first;
        c.seq = key.second;
        c.kind = records.front()->kind;
        c.bytes = records.front()->bytes;
        c.members = static_cast<uint32_t>(records.size());
        std::vector<std::pair<double, double>> sides;
        for (const CommRecord* record : records)
        {
            sides.emplace_back(Micros(record->start), Micros(record->end));
        }
        const bool together = CompletesTogether(c.kind);
        c.simulated = TimeCall(sides, together);
        if (const MeasuredRun::Call* call = measured.FindCall(c.pg, c.seq))
        {
            std::vector<std::pair<double, double>> measuredSides;
            for (const auto& [rank, side] : call->sides)
            {
                measuredSides.emplace_back(side.startUs, side.endUs);
            }
            c.measured = TimeCall(measuredSides, together);
        }
        v.collectives.push_back(c);
    }
    std::sort(v.collectives.begin(), v.collectives.end(), [](const auto& a, const auto& b) {
        return std::make_tuple(a.pg, a.seq) < std::make_tuple(b.pg, b.seq);
    });
    return v;
}

std::optional<double>
ReplayValidation::IterationError() const
{
    if (measuredIterationUs <= 0)
    {
        return std::nullopt;
    }
    return (simulatedIterationUs - measuredIterationUs) / measuredIterationUs;
}

void
ReplayValidation::Print(std::ostream& os, std::size_t maxRows) const
{
    os << "\n== validation against the measured run\n";
    PrintIteration(os);
    PrintRanks(os);
    PrintCalibration(os);
    PrintCallDelays(os);
    PrintCollectives(os, maxRows);
}

void
ReplayValidation::PrintIteration(std::ostream& os) const
{
    if (measuredIterationUs <= 0)
    {
        os << "iteration: simulated " << FormatFixed(simulatedIterationUs, 1)
           << " us; the traces carry no measured iteration\n";
    }
    else
    {
        os << "clocks: " << clockNote << "\n";
        double spread = 0;
        for (double offset : startOffsetsUs)
        {
            spread = std::max(spread, offset);
        }
        if (measuredOffsets)
        {
            os << "ranks start at their measured offsets (latest +" << FormatFixed(spread, 0)
               << " us" << (startNote.empty() ? "" : "; " + startNote)
               << "); per-rank times below are from each rank's own start\n";
            os << "iteration: simulated " << FormatFixed(simulatedIterationUs, 1)
               << " us, measured " << FormatFixed(measuredIterationUs, 1)
               << " us (first rank's start to last rank's end"
               << (measuredIterationName.empty() ? "" : " of " + measuredIterationName)
               << "), error " << FormatFixed(*IterationError() * 100, 1) << "%\n";
        }
        else
        {
            if (startOffsetsUs.size() > 1)
            {
                os << "ranks start together" << (startNote.empty() ? "" : " (" + startNote + ")")
                   << "; the measured ranks started up to " << FormatFixed(spread, 0)
                   << " us apart\n";
            }
            os << "iteration: simulated " << FormatFixed(simulatedIterationUs, 1)
               << " us, measured " << FormatFixed(measuredIterationUs, 1) << " us ("
               << (measuredIterationName.empty() ? "span of the traced ops" : measuredIterationName)
               << ", longest rank), error " << FormatFixed(*IterationError() * 100, 1) << "%\n";
        }
    }
}

void
ReplayValidation::PrintRanks(std::ostream& os) const
{
    if (!measuredRankUs.empty() && measuredRankUs.size() == simulatedRankUs.size())
    {
        os << "per rank (simulated / measured us, error):";
        for (std::size_t r = 0; r < measuredRankUs.size(); ++r)
        {
            os << (r % 4 == 0 ? "\n  " : "   ") << "rank " << r << " "
               << FormatFixed(simulatedRankUs[r], 0) << " / " << FormatFixed(measuredRankUs[r], 0)
               << " " << std::setw(6) << Percent(simulatedRankUs[r], measuredRankUs[r]);
        }
        os << "\n";
    }
}

void
ReplayValidation::PrintCalibration(std::ostream& os) const
{
    if (calibration)
    {
        os << "collective software cost: " << calibration->cost << "\n";
        if (calibration->iterationError)
        {
            os << "  without it: iteration error "
               << FormatFixed(*calibration->iterationError * 100, 1) << "%";
            if (calibration->simulatedRankUs.size() == measuredRankUs.size())
            {
                os << "; per rank";
                for (std::size_t r = 0; r < measuredRankUs.size(); ++r)
                {
                    os << (r ? ", " : " ") << r << ": "
                       << Percent(calibration->simulatedRankUs[r], measuredRankUs[r]);
                }
            }
            os << "\n";
        }
    }
}

void
ReplayValidation::PrintCallDelays(std::ostream& os) const
{
    if (!callDelays.empty())
    {
        os << "rank-local delays replayed after collectives (a member's end after the "
              "first member's, measured):";
        for (std::size_t r = 0; r < callDelays.size(); ++r)
        {
            if (callDelays[r].second > 0)
            {
                os << " rank " << r << " " << FormatFixed(callDelays[r].first, 1) << " us in "
                   << callDelays[r].second << " call" << (callDelays[r].second == 1 ? "" : "s")
                   << ";";
            }
        }
        os << "\n";
    }
}

void
ReplayValidation::PrintCollectives(std::ostream& os, std::size_t maxRows) const
{
    std::size_t measured = 0;
    for (const auto& c : collectives)
    {
        measured += c.measured.has_value();
    }
    if (measured == 0)
    {
        os << "collectives: no measured times in the traces\n";
        return;
    }
    os << "collectives: skew = last arrival - first arrival (waiting for the last rank); "
          "transfer = completion - last arrival; local = last member's end - completion\n";
    os << std::left << std::setw(12) << "type" << std::setw(6) << "pg" << std::right << std::setw(4)
       << "seq" << std::setw(11) << "bytes" << std::setw(11) << "skew_sim" << std::setw(11)
       << "skew_meas" << std::setw(13) << "transfer_sim" << std::setw(14) << "transfer_meas"
       << std::setw(9) << "error" << std::setw(11) << "local_sim" << std::setw(11) << "local_meas"
       << "\n";
    std::size_t shown = 0;
    for (const auto& c : collectives)
    {
        if (!c.measured)
        {
            continue;
        }
        if (shown++ == maxRows)
        {
            os << "... more in validation.csv\n";
            break;
        }
        os << std::left << std::setw(12) << c.kind << std::setw(6)
           << (c.pg.empty() ? "world" : c.pg) << std::right << std::setw(4) << c.seq
           << std::setw(11) << c.bytes << std::setw(11) << FormatFixed(c.simulated.skewUs, 1)
           << std::setw(11) << FormatFixed(c.measured->skewUs, 1) << std::setw(13)
           << FormatFixed(c.simulated.transferUs, 1) << std::setw(14)
           << FormatFixed(c.measured->transferUs, 1) << std::setw(9)
           << Percent(c.simulated.transferUs, c.measured->transferUs) << std::setw(11)
           << FormatFixed(c.simulated.localUs, 1) << std::setw(11)
           << FormatFixed(c.measured->localUs, 1) << "\n";
    }
}

void
ReplayValidation::WriteCsv(const std::string& path) const
{
    AtomicOutputFile out(path);
    out.Write("what,name,pg,seq,bytes,simulated_us,measured_us,error,simulated_skew_us,"
              "measured_skew_us,simulated_transfer_us,measured_transfer_us,transfer_error,"
              "start_offset_us,simulated_local_us,measured_local_us\n");
    auto error = [](double simulated, double measured) {
        return measured > 0 ? FormatFixed((simulated - measured) / measured, 4) : std::string();
    };
    out.Write(std::string(measuredOffsets ? "iteration_span," : "iteration,") +
              measuredIterationName + ",,,," + FormatFixed(simulatedIterationUs, 3) + "," +
              FormatFixed(measuredIterationUs, 3) + "," +
              error(simulatedIterationUs, measuredIterationUs) + ",,,,,,,,\n");
    if (calibration && calibration->iterationError)
    {
        const double uncalibrated = measuredIterationUs * (1 + *calibration->iterationError);
        out.Write(std::string(measuredOffsets ? "iteration_span" : "iteration") + "_uncalibrated," +
                  measuredIterationName + ",,,," + FormatFixed(uncalibrated, 3) + "," +
                  FormatFixed(measuredIterationUs, 3) + "," +
                  error(uncalibrated, measuredIterationUs) + ",,,,,,,,\n");
    }
    for (std::size_t r = 0; r < measuredRankUs.size() && r < simulatedRankUs.size(); ++r)
    {
        const double offset = r < startOffsetsUs.size() ? startOffsetsUs[r] : 0.0;
        out.Write("rank," + std::to_string(r) + ",,,," + FormatFixed(simulatedRankUs[r], 3) + "," +
                  FormatFixed(measuredRankUs[r], 3) + "," +
                  error(simulatedRankUs[r], measuredRankUs[r]) + ",,,,,," + FormatFixed(offset, 3) +
                  ",,\n");
    }
    if (calibration && calibration->simulatedRankUs.size() == measuredRankUs.size())
    {
        for (std::size_t r = 0; r < measuredRankUs.size(); ++r)
        {
            const double simulated = calibration->simulatedRankUs[r];
            out.Write("rank_uncalibrated," + std::to_string(r) + ",,,," +
                      FormatFixed(simulated, 3) + "," + FormatFixed(measuredRankUs[r], 3) + "," +
                      error(simulated, measuredRankUs[r]) + ",,,,,,,,\n");
        }
    }
    for (const auto& c : collectives)
    {
        std::string line = "collective," + c.kind + "," + c.pg + "," + std::to_string(c.seq) + "," +
                           std::to_string(c.bytes) + "," + FormatFixed(c.simulated.spanUs, 3) + ",";
        if (c.measured)
        {
            line += FormatFixed(c.measured->spanUs, 3) + "," +
                    error(c.simulated.spanUs, c.measured->spanUs) + "," +
                    FormatFixed(c.simulated.skewUs, 3) + "," + FormatFixed(c.measured->skewUs, 3) +
                    "," + FormatFixed(c.simulated.transferUs, 3) + "," +
                    FormatFixed(c.measured->transferUs, 3) + "," +
                    error(c.simulated.transferUs, c.measured->transferUs) + ",," +
                    FormatFixed(c.simulated.localUs, 3) + "," +
                    FormatFixed(c.measured->localUs, 3) + "\n";
        }
        else
        {
            line += ",," + FormatFixed(c.simulated.skewUs, 3) + ",," +
                    FormatFixed(c.simulated.transferUs, 3) + ",,,," +
                    FormatFixed(c.simulated.localUs, 3) + ",\n";
        }
        out.Write(line);
    }
    out.Commit();
}

} // namespace ns3
