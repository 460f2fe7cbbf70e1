/*
 * chakra_check_ranks: do the per-rank .et traces of one job agree on their communication?
 *
 *   chakra_check_ranks PREFIX            (PREFIX.0.et, PREFIX.1.et, ... or .et.gz)
 *   chakra_check_ranks A.et B.et ...
 *
 * Exit status: 0 consistent, 1 mismatches found (or a file could not be read), 2 usage error.
 */
#include "ns3/rank-consistency.h"
#include "ns3/rank-traces.h"
#include "ns3/tool-args.h"

#include <iostream>
#include <sys/stat.h>

int
main(int argc, char** argv)
{
    const std::string program = "chakra_check_ranks";
    ns3::ToolArgs args(program,
                       "Checks that the .et traces of the ranks of one job agree: the collectives "
                       "of each process\ngroup in the same order with the same type, root and "
                       "size; every send matched by a\nreceive (source, destination, comm_tag, "
                       "comm_size: a send goes from its file's rank to\ncomm_dst, a receive "
                       "waits for comm_src, as the simulator matches them). Exit status 1\non any "
                       "mismatch.");
    args.AddPositional("trace", "a per-rank prefix (PREFIX.<rank>.et) or a .et file");
    args.AllowMorePositionals("more", "more .et files, one per rank");
    args.AddFlag("quiet", "print only mismatches and warnings");
    args.AddFlag("strict",
                 "communication nodes without comm_size (run as 0 bytes) are mismatches, not "
                 "warnings");
    bool done = false;
    int code = args.Parse(argc, argv, done);
    if (done)
    {
        return code;
    }
    return ns3::RunTool(program, [&]() {
        std::vector<std::string> files{args.Get("trace")};
        const auto& more = args.GetMorePositionals();
        files.insert(files.end(), more.begin(), more.end());
        struct stat info
        {
        };
        if (files.size() == 1 && stat(files[0].c_str(), &info) != 0)
        {
            // Every <prefix>.<rank>.et: a gap in the ranks is an error naming the missing ones
            // (stopping at the first gap would check a smaller job and call it consistent).
            files = ns3::FindRankTraces(files[0]);
            if (files.empty())
            {
                std::cerr << program << ": error: no file " << args.Get("trace")
                          << ".0.et (or .et.gz), and no file of that name" << std::endl;
                return 1;
            }
        }
        ns3::RankConsistencyOptions options;
        options.strict = args.Has("strict");
        ns3::RankConsistencyReport report = ns3::CheckRankConsistency(files, options);
        if (!args.Has("quiet") || !report.IsConsistent() || report.warningCount > 0)
        {
            std::cout << report;
        }
        return report.IsConsistent() ? 0 : 1;
    });
}
