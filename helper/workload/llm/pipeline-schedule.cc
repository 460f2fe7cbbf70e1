#include "pipeline-schedule.h"

#include <algorithm>
#include <stdexcept>
#include <string>

namespace ns3
{

namespace
{

/** The k-th forward (or backward) pass of a stage in the interleaved schedule. */
PipelineStep
InterleavedStep(uint32_t pp, uint32_t vp, uint64_t k, bool forward)
{
    const uint64_t group = uint64_t{pp} * vp;
    PipelineStep step;
    step.forward = forward;
    const auto chunk = static_cast<uint32_t>((k % group) / pp);
    step.chunk = forward ? chunk : vp - 1 - chunk;
    step.microBatch = static_cast<uint32_t>((k / group) * pp + k % pp);
    return step;
}

/** Throws unless (stage, chunk) is a virtual stage of a pp x vp pipeline. */
void
CheckStages(uint32_t pp, uint32_t vp, uint32_t stage, uint32_t chunk)
{
    if (pp == 0 || stage >= pp)
    {
        throw std::invalid_argument("llm: pipeline stage " + std::to_string(stage) +
                                    " is outside --pp " + std::to_string(pp));
    }
    if (vp == 0 || chunk >= vp)
    {
        throw std::invalid_argument("llm: chunk " + std::to_string(chunk) + " is outside --vp " +
                                    std::to_string(vp));
    }
    if (vp > 1 && pp == 1)
    {
        throw std::invalid_argument("llm: --vp " + std::to_string(vp) + " needs --pp > 1");
    }
}

} // namespace

std::vector<PipelineStep>
PipelineOrder(uint32_t pp, uint32_t stage, uint32_t vp, uint32_t microBatches)
{
    CheckStages(pp, vp, stage, 0);
    if (microBatches == 0)
    {
        throw std::invalid_argument("llm: the step has no micro-batches");
    }
    if (vp > 1 && microBatches % pp != 0)
    {
        throw std::invalid_argument("llm: interleaving (--vp " + std::to_string(vp) +
                                    ") needs the micro-batches (" + std::to_string(microBatches) +
                                    ") to be a multiple of --pp " + std::to_string(pp));
    }
    const uint64_t total = uint64_t{microBatches} * vp;
    uint64_t warmup =
        vp == 1
            ? pp - stage - 1
            : (microBatches == pp ? total : uint64_t{pp - stage - 1} * 2 + uint64_t{vp - 1} * pp);
    warmup = std::min(warmup, total);
    auto at = [&](uint64_t k, bool forward) {
        if (vp == 1)
        {
            return PipelineStep{forward, static_cast<uint32_t>(k), 0};
        }
        return InterleavedStep(pp, vp, k, forward);
    };
    std::vector<PipelineStep> order;
    order.reserve(2 * total);
    for (uint64_t k = 0; k < warmup; ++k)
    {
        order.push_back(at(k, true));
    }
    for (uint64_t k = 0; k + warmup < total; ++k)
    {
        order.push_back(at(warmup + k, true));
        order.push_back(at(k, false));
    }
    for (uint64_t k = total - warmup; k < total; ++k)
    {
        order.push_back(at(k, false));
    }
    return order;
}

std::optional<std::pair<uint32_t, uint32_t>>
NextVirtualStage(uint32_t pp, uint32_t vp, uint32_t stage, uint32_t chunk)
{
    CheckStages(pp, vp, stage, chunk);
    const uint64_t next = uint64_t{chunk} * pp + stage + 1;
    if (next >= uint64_t{pp} * vp)
    {
        return std::nullopt;
    }
    return std::make_pair(static_cast<uint32_t>(next % pp), static_cast<uint32_t>(next / pp));
}

std::optional<std::pair<uint32_t, uint32_t>>
PreviousVirtualStage(uint32_t pp, uint32_t vp, uint32_t stage, uint32_t chunk)
{
    CheckStages(pp, vp, stage, chunk);
    const uint64_t here = uint64_t{chunk} * pp + stage;
    if (here == 0)
    {
        return std::nullopt;
    }
    const uint64_t previous = here - 1;
    return std::make_pair(static_cast<uint32_t>(previous % pp),
                          static_cast<uint32_t>(previous / pp));
}

} // namespace ns3
