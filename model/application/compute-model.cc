#include "compute-model.h"

#include "trace-limits.h"

#include "ns3/double.h"
#include "ns3/enum.h"
#include "ns3/string.h"

#include <algorithm>
#include <cmath>

namespace ns3
{

NS_OBJECT_ENSURE_REGISTERED(ComputeModel);

TypeId
ComputeModel::GetTypeId()
{
    static TypeId tid =
        TypeId("ns3::ComputeModel")
            .SetParent<Object>()
            .SetGroupName("Chakra")
            .AddConstructor<ComputeModel>()
            .AddAttribute("Mode",
                          "replay: the trace's durations (scaled); roofline: from num_ops and "
                          "tensor_size where a GPU op has them.",
                          EnumValue(REPLAY),
                          MakeEnumAccessor(&ComputeModel::m_mode),
                          MakeEnumChecker(REPLAY, "replay", ROOFLINE, "roofline"))
            .AddAttribute("ComputeScale",
                          "Factor on GPU op durations (0.5: a GPU twice as fast).",
                          DoubleValue(1.0),
                          MakeDoubleAccessor(&ComputeModel::m_gpuScale),
                          MakeDoubleChecker<double>(0.0))
            .AddAttribute("CpuScale",
                          "Factor on CPU op durations.",
                          DoubleValue(1.0),
                          MakeDoubleAccessor(&ComputeModel::m_cpuScale),
                          MakeDoubleChecker<double>(0.0))
            .AddAttribute("PeakFlops",
                          "Roofline: peak floating-point operations per second.",
                          DoubleValue(989e12), // H100 SXM dense BF16
                          MakeDoubleAccessor(&ComputeModel::m_peakFlops),
                          MakeDoubleChecker<double>(1.0))
            .AddAttribute("MemoryBandwidth",
                          "Roofline: memory bandwidth in bytes per second.",
                          DoubleValue(3.35e12), // H100 SXM HBM3
                          MakeDoubleAccessor(&ComputeModel::m_memoryBandwidth),
                          MakeDoubleChecker<double>(1.0));
    return tid;
}

ComputeModel::ComputeModel() = default;

Time
ComputeModel::GetDuration(const EtNode& node) const
{
    const bool cpu = node.IsCpuOp();
    if (!cpu && m_mode == ROOFLINE)
    {
        double ops = static_cast<double>(node.GetNumOps());
        double bytes = static_cast<double>(node.GetTensorSize());
        if (ops > 0 || bytes > 0)
        {
            double seconds = std::max(ops / m_peakFlops, bytes / m_memoryBandwidth);
            return NodeDuration(node, "roofline time (num_ops, tensor_size)", seconds * 1e6);
        }
    }
    // The trace's value is checked before scaling, the scaled one after (a scale factor can
    // make a sane op absurd too).
    NodeDuration(node, "duration_micros", node.GetDurationMicros());
    const double scale = cpu ? m_cpuScale : m_gpuScale;
    return NodeDuration(node,
                        "duration_micros x scale",
                        static_cast<double>(node.GetDurationMicros()) * scale);
}

} // namespace ns3
