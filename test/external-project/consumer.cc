/*
 * Uses the installed module: the headers as ns3/<name>.h, TypeIds registered, a trace written
 * and read back, and a one-rank simulation run. Prints "consumer ok" on success.
 */
#include "ns3/chakra-module.h"
#include "ns3/core-module.h"

#include <cstdlib>
#include <iostream>
#include <unistd.h>

using namespace ns3;

int
main()
{
    char directory[] = "/tmp/chakra-consumer-XXXXXX";
    if (mkdtemp(directory) == nullptr)
    {
        return 1;
    }
    const std::string prefix = std::string(directory) + "/step";
    CollectiveBenchSpec spec;
    spec.ranks = 1;
    spec.computeMicros = 7;
    WorkloadGenerator::WriteCollectiveBench(prefix, spec);

    NodeContainer nodes;
    nodes.Create(1);
    ChakraHelper chakra(prefix);
    chakra.Install(nodes);
    Simulator::Run();
    ChakraReport report = chakra.GetReport();
    Simulator::Destroy();
    unlink(RankTraceBuilder::Path(prefix, 0).c_str());
    rmdir(directory);
    // One rank: the compute node takes its 7 us, the all-reduce on a communicator of one none.
    if (!report.AllFinished() || report.GetIterationTime() != MicroSeconds(7))
    {
        std::cerr << "consumer: unexpected report" << std::endl;
        report.Print(std::cerr);
        return 1;
    }
    std::cout << "consumer ok: " << TypeId::LookupByName("ns3::ChakraApplication").GetName()
              << std::endl;
    return 0;
}
