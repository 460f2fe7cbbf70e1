/*
 * What the NCCL model's tests share: a call laid out on hosts, and every rank's sends of a
 * built call with the check that each has its matching receive.
 */
#ifndef CHAKRA_TEST_NCCL_SCHEDULES_H
#define CHAKRA_TEST_NCCL_SCHEDULES_H

#include "chakra-test-data.h"
#include "simulation-util.h"

#include "ns3/chakra-module.h"

#include <boost/test/unit_test.hpp>
#include <map>
#include <memory>
#include <tuple>
#include <vector>

namespace chakra_test
{

/** A call on \p hosts x \p gpus ranks (rank = host x gpus + local GPU). */
inline ns3::CollectiveRequest
Request(ChakraProtoMsg::CollectiveCommType type, uint32_t hosts, uint32_t gpus, uint64_t bytes)
{
    ns3::CollectiveRequest request;
    request.type = type;
    request.size = hosts * gpus;
    request.bytes = bytes;
    auto hostOf = std::make_shared<std::vector<uint32_t>>();
    for (uint32_t i = 0; i < request.size; ++i)
    {
        hostOf->push_back(i / gpus);
    }
    request.hostOf = hostOf;
    return request;
}

/** One message of the whole job: sender, receiver, tag, bytes. */
struct Message
{
    uint32_t from;
    uint32_t to;
    int64_t tag;
    uint64_t bytes;
};

/** \return every rank's sends; checks that every send has its matching receive */
inline std::vector<Message>
AllSends(const ns3::CollectiveAlgorithm& algorithm, ns3::CollectiveRequest request)
{
    std::vector<Message> sends;
    std::map<std::tuple<uint32_t, uint32_t, int64_t>, std::vector<uint64_t>> sent;
    std::map<std::tuple<uint32_t, uint32_t, int64_t>, std::vector<uint64_t>> received;
    for (uint32_t me = 0; me < request.size; ++me)
    {
        request.me = me;
        for (const ns3::CollectiveOp& op : ns3::ListOps(*algorithm.Build(request)))
        {
            if (op.send)
            {
                sends.push_back({me, op.peer, op.tag, op.bytes});
                sent[{me, op.peer, op.tag}].push_back(op.bytes);
            }
            else
            {
                received[{op.peer, me, op.tag}].push_back(op.bytes);
            }
        }
    }
    BOOST_TEST((sent == received));
    return sends;
}

/**
 * Runs one call of \p type, \p bytes a rank (the trace's comm_size), on \p hosts x \p gpus
 * ranks with the NCCL model (flow transport, the cluster's defaults otherwise: H100).
 * \return the run's report
 */
inline ns3::ChakraReport
RunNcclCall(ChakraProtoMsg::CollectiveCommType type,
            uint32_t hosts,
            uint32_t gpus,
            uint64_t bytes,
            const std::string& topology = "single-switch")
{
    TempDir dir;
    ns3::CollectiveBenchSpec spec;
    spec.type = type;
    spec.ranks = hosts * gpus;
    spec.bytes = bytes;
    ns3::WorkloadGenerator::WriteCollectiveBench(dir.File("c"), spec);
    ClusterConfig config;
    config.hosts = hosts;
    config.gpusPerHost = gpus;
    config.transport = "flow";
    config.topology = topology;
    config.appAttributes.emplace_back(type == ChakraProtoMsg::ALL_GATHER ? "AllGatherAlgorithm"
                                      : type == ChakraProtoMsg::REDUCE_SCATTER
                                          ? "ReduceScatterAlgorithm"
                                          : "AllReduceAlgorithm",
                                      "nccl");
    return RunCluster(dir.File("c"), config);
}

} // namespace chakra_test

#endif // CHAKRA_TEST_NCCL_SCHEDULES_H
