#include "rdma-stats-gather.h"

#include "ns3/mpi-context.h"
#include "ns3/node.h"

#include <cstring>
#include <stdexcept>
#include <string>

namespace ns3
{

namespace
{

void
Put(std::string& bytes, uint64_t value)
{
    bytes.append(reinterpret_cast<const char*>(&value), sizeof(value));
}

uint64_t
Take(const std::string& bytes, std::size_t& at)
{
    if (at + sizeof(uint64_t) > bytes.size())
    {
        throw std::runtime_error("RDMA counters from another process are truncated");
    }
    uint64_t value = 0;
    std::memcpy(&value, bytes.data() + at, sizeof(value));
    at += sizeof(value);
    return value;
}

/** The fields of a port's counters, in one order for writing and reading. */
template <typename Visit>
void
PortFields(RdmaNetDevice::Stats& s, Visit visit)
{
    visit(s.txFrames);
    visit(s.txBytes);
    visit(s.txDataBytes);
    visit(s.rxFrames);
    visit(s.busyTime);
    visit(s.pausesSent);
    visit(s.resumesSent);
    visit(s.pausesReceived);
    visit(s.resumesReceived);
    visit(s.pausedTime);
    visit(s.ecnMarks);
    visit(s.drops);
    visit(s.maxQueueBytes);
    visit(s.maxIngressBytes);
}

/** The fields of a NIC's counters. */
template <typename Visit>
void
NicFields(RdmaNic::Stats& s, Visit visit)
{
    visit(s.queuePairs);
    visit(s.dataPackets);
    visit(s.resentPackets);
    visit(s.naksSent);
    visit(s.naksReceived);
    visit(s.cnpsSent);
    visit(s.cnpsReceived);
    visit(s.timeouts);
    visit(s.outOfOrder);
    visit(s.duplicates);
    visit(s.misrouted);
}

/** Writes a counter (a count or a time in time steps). */
struct Writer
{
    std::string& bytes;

    void operator()(uint64_t& value) const
    {
        Put(bytes, value);
    }

    void operator()(Time& value) const
    {
        Put(bytes, static_cast<uint64_t>(value.GetTimeStep()));
    }
};

/** Reads what Writer wrote. */
struct Reader
{
    const std::string& bytes;
    std::size_t& at;

    void operator()(uint64_t& value) const
    {
        value = Take(bytes, at);
    }

    void operator()(Time& value) const
    {
        value = TimeStep(static_cast<uint64_t>(Take(bytes, at)));
    }
};

/**
 * Gathers per-object counters to process 0: each process sends (index, counters) for the
 * objects its nodes own; process 0 puts each where it belongs.
 */
template <typename Stats, typename Object, typename Fields>
std::vector<Stats>
Gather(const std::vector<Ptr<Object>>& objects, Fields fields, Ptr<Node> (*nodeOf)(Ptr<Object>))
{
    std::vector<Stats> stats(objects.size());
    for (std::size_t i = 0; i < objects.size(); ++i)
    {
        stats[i] = objects[i]->GetStats();
    }
    if (MpiContext::GetProcessCount() <= 1)
    {
        return stats;
    }
    const uint32_t self = MpiContext::GetProcessId();
    std::string mine;
    for (std::size_t i = 0; i < objects.size(); ++i)
    {
        if (nodeOf(objects[i])->GetSystemId() == self)
        {
            Put(mine, i);
            fields(stats[i], Writer{mine});
        }
    }
    const std::vector<std::string> parts = MpiContext::GatherToFirst(mine);
    if (self != 0)
    {
        return stats;
    }
    for (const std::string& part : parts)
    {
        std::size_t at = 0;
        while (at < part.size())
        {
            const uint64_t index = Take(part, at);
            if (index >= stats.size())
            {
                throw std::runtime_error("RDMA counters from another process name object " +
                                         std::to_string(index) + " of " +
                                         std::to_string(stats.size()));
            }
            fields(stats[index], Reader{part, at});
        }
    }
    return stats;
}

Ptr<Node>
NodeOfDevice(Ptr<RdmaNetDevice> device)
{
    return device->GetNode();
}

Ptr<Node>
NodeOfNic(Ptr<RdmaNic> nic)
{
    // The fabric aggregates each NIC to its GPU's node.
    return nic->GetObject<Node>();
}

} // namespace

std::vector<RdmaNetDevice::Stats>
GatherPortStats(const std::vector<Ptr<RdmaNetDevice>>& devices)
{
    return Gather<RdmaNetDevice::Stats>(
        devices,
        [](RdmaNetDevice::Stats& s, auto visit) { PortFields(s, visit); },
        &NodeOfDevice);
}

std::vector<RdmaNic::Stats>
GatherNicStats(const std::vector<Ptr<RdmaNic>>& nics)
{
    return Gather<RdmaNic::Stats>(
        nics,
        [](RdmaNic::Stats& s, auto visit) { NicFields(s, visit); },
        &NodeOfNic);
}

} // namespace ns3
