#include "trace-limits.h"

#include "ns3/trace-error.h"

#include <cmath>
#include <sstream>

namespace ns3
{

Time
NodeDuration(const EtNode& node, const std::string& field, double micros)
{
    if (!std::isfinite(micros) || micros < 0 || micros > static_cast<double>(kMaxNodeMicros))
    {
        std::ostringstream what;
        what.precision(17);
        what << field << " " << micros << " us is not a duration a trace can have (0 to "
             << kMaxNodeMicros << " us, one hour)";
        throw TraceError("", node.Describe(), what.str());
    }
    return NanoSeconds(static_cast<int64_t>(std::llround(micros * 1000.0)));
}

Time
NodeDuration(const EtNode& node, const std::string& field, uint64_t micros)
{
    if (micros > kMaxNodeMicros)
    {
        // Named with its exact value: a double would round INT64_MAX.
        throw TraceError("",
                         node.Describe(),
                         field + " " + std::to_string(micros) +
                             " us is not a duration a trace can have (0 to " +
                             std::to_string(kMaxNodeMicros) + " us, one hour)");
    }
    return MicroSeconds(static_cast<int64_t>(micros));
}

uint64_t
NodeCommBytes(const EtNode& node)
{
    const uint64_t bytes = node.GetCommSize();
    if (bytes > kMaxCommBytes)
    {
        throw TraceError("",
                         node.Describe(),
                         "comm_size " + std::to_string(bytes) +
                             " bytes is above the largest call a trace can have (" +
                             std::to_string(kMaxCommBytes) + " bytes, 1 TiB)");
    }
    return bytes;
}

} // namespace ns3
