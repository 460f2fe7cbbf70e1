/*
 * --job PREFIX[:key=value,...]: one job of several on a cluster (issue 28).
 */
#ifndef CHAKRA_JOB_SPEC_H
#define CHAKRA_JOB_SPEC_H

#include "ns3/cluster-job.h"

#include <string>
#include <vector>

namespace ns3
{

/**
 * \ingroup chakra-config
 * Reads one --job value: a trace prefix, then optionally ':' and key=value pairs separated by
 * ','. Keys:
 * - name: the job's name in the report (default: its number, from 1);
 * - start: when its ranks start (a duration: 0, 500us, 2ms; a bare number is seconds);
 * - hosts: its hosts, numbers and ranges joined by '+' (0-3+8), in rank order;
 * - any application flag of ClusterOptions (algorithm, chunk-size, compute-scale, ctrl-deps,
 *   dangling-deps), for this job only, checked as the flag is.
 * The pairs start at the first ':' followed by a word and '=' (a prefix may hold other ':').
 * \param text the value
 * \return the job
 * \throws std::invalid_argument naming --job, the key and what is wrong
 */
ClusterJob ParseJobSpec(const std::string& text);

/**
 * \ingroup chakra-config
 * Reads a jobs file (--jobs-file; YAML, or JSON, which YAML reads): a list of jobs, or a
 * mapping whose one key "jobs" holds it. Each job is a mapping: "trace" (its prefix, required)
 * and the keys of ParseJobSpec; "hosts" may also be a list ([0, 1, "4-5"]).
 * \param path the file
 * \return the jobs, in the file's order
 * \throws std::invalid_argument naming the file, the line, the job and the key
 */
std::vector<ClusterJob> ReadJobsFile(const std::string& path);

} // namespace ns3

#endif // CHAKRA_JOB_SPEC_H
