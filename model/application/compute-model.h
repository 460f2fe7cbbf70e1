/*
 * ComputeModel: how long a compute node takes.
 */
#ifndef CHAKRA_COMPUTE_MODEL_H
#define CHAKRA_COMPUTE_MODEL_H

#include "ns3/et-node.h"
#include "ns3/nstime.h"
#include "ns3/object.h"

#include <string>

namespace ns3
{

/**
 * \ingroup chakra-application
 * \brief Turns a COMP node into a duration.
 *
 * - "replay" (default): the trace's duration_micros, times ComputeScale for GPU ops (a faster
 *   GPU: 0.5) and CpuScale for CPU ops;
 * - "roofline": for a GPU op with num_ops or tensor_size, max(num_ops / PeakFlops,
 *   tensor_size / MemoryBandwidth) (the time the slower of compute and memory needs); ops
 *   without them fall back to replay.
 */
class ComputeModel : public Object
{
  public:
    /** \return the TypeId */
    static TypeId GetTypeId();
    ComputeModel();

    /** \param node a compute node \return its duration */
    Time GetDuration(const EtNode& node) const;

    /** Where durations come from (the Mode attribute). */
    enum Mode : int
    {
        REPLAY,   //!< the trace's durations, scaled
        ROOFLINE, //!< from num_ops and tensor_size where a GPU op has them
    };

  private:
    Mode m_mode;              //!< Mode
    double m_gpuScale;        //!< ComputeScale
    double m_cpuScale;        //!< CpuScale
    double m_peakFlops;       //!< FLOP/s
    double m_memoryBandwidth; //!< bytes/s
};

} // namespace ns3

#endif // CHAKRA_COMPUTE_MODEL_H
