/*
 * The command-line flags of chakra_generator --workload llm, and the LlmStepSpec they make.
 */
#ifndef CHAKRA_LLM_STEP_FLAGS_H
#define CHAKRA_LLM_STEP_FLAGS_H

#include "llm-step.h"

#include "ns3/tool-args.h"

#include <string>
#include <vector>

namespace ns3
{

/**
 * Declares the flags only --workload llm reads. It also reads --ranks, --tp, --dp, --ep and
 * --bucket-bytes, which the tool declares for every workload (their defaults there are not
 * the llm workload's: an llm flag not given is 1, or derived).
 * \param args the tool's flags
 */
void DeclareLlmFlags(ToolArgs& args);

/** \return every flag --workload llm reads (for the tool's "does not apply" check) */
std::vector<std::string> LlmFlagNames();

/**
 * \param args the parsed flags
 * \return the step they describe, each value checked where it is read
 * \throws std::invalid_argument naming the flag (or the model file and key)
 */
LlmStepSpec LlmStepSpecFromFlags(const ToolArgs& args);

/** \return one line saying what a plan is (model, layout, micro-batches, FLOPs) */
std::string DescribeLlmStep(const LlmStepSpec& spec, const LlmStepPlan& plan);

} // namespace ns3

#endif // CHAKRA_LLM_STEP_FLAGS_H
