/*
 * CommCategory: which kind of parallelism a communication node serves, read from its process
 * group's name, so that the report can say where a training step's exposed communication went.
 */
#ifndef CHAKRA_COMM_CATEGORY_H
#define CHAKRA_COMM_CATEGORY_H

#include <array>
#include <cstddef>
#include <ostream>
#include <string>

namespace ns3
{

/**
 * \ingroup chakra-application
 * \brief The parallelism a communication node serves.
 *
 * The order is the order in which the report attributes time that two kinds of communication
 * share (see RankStatsRecorder::Summarize): first what blocks the compute stream (tensor,
 * context and expert parallel collectives), then the data-parallel reductions that overlap the
 * backward pass, then anything unnamed, and pipeline send/recv last, since a stage waiting on
 * its neighbour is the pipeline bubble.
 */
enum class CommCategory
{
    Tensor,   //!< tensor parallel (group family "tp")
    Context,  //!< context parallel ("cp")
    Expert,   //!< expert parallel all-to-all ("ep")
    Data,     //!< data parallel: "dp", "dpcp", "edp" (expert data) and "emb" (tied embedding)
    Other,    //!< any other group (e.g. a real trace's numbered groups)
    Pipeline, //!< pipeline send/recv ("pp", or a send/recv on a group of no known family)
};

/** Number of CommCategory values. */
constexpr std::size_t kCommCategoryCount = 6;

/** Every category, in attribution order. */
constexpr std::array<CommCategory, kCommCategoryCount> kCommCategories = {CommCategory::Tensor,
                                                                          CommCategory::Context,
                                                                          CommCategory::Expert,
                                                                          CommCategory::Data,
                                                                          CommCategory::Other,
                                                                          CommCategory::Pipeline};

/**
 * \ingroup chakra-application
 * \brief Classifies a communication node by its process group's family: the group name's
 * leading letters, as the generators name groups ("tp3", "dpcp0", "emb1"; Megatron-LM's own
 * terms).
 *
 * \param pgName the node's pg_name ("" = the world communicator)
 * \param pointToPoint the node is a send or a receive
 * \return the category; a group of no known family is Other, except that a send/recv on one
 *         is Pipeline (point-to-point in training traces is pipeline traffic: Megatron-LM's and
 *         PyTorch's pipeline schedules are its users)
 */
CommCategory ClassifyCommunication(const std::string& pgName, bool pointToPoint);

/** \return "TP", "CP", "EP", "DP", "other" or "PP" */
const char* CommCategoryLabel(CommCategory category);

/** Prints CommCategoryLabel(category). */
std::ostream& operator<<(std::ostream& os, CommCategory category);

} // namespace ns3

#endif // CHAKRA_COMM_CATEGORY_H
