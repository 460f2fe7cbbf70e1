/*
 * Small helpers shared by the benchmark programs: wall clock, peak RSS, running a phase in a
 * child process so that each phase reports its own peak memory.
 */
#ifndef CHAKRA_BENCH_UTIL_H
#define CHAKRA_BENCH_UTIL_H

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

namespace chakra_bench
{

/** \return seconds since an arbitrary origin (monotonic) */
inline double
Now()
{
    using namespace std::chrono;
    return duration<double>(steady_clock::now().time_since_epoch()).count();
}

/** \return this process's peak resident set size in MiB */
inline double
PeakRssMiB()
{
    struct rusage usage;
    getrusage(RUSAGE_SELF, &usage);
    return static_cast<double>(usage.ru_maxrss) / 1024.0; // ru_maxrss is in KiB on Linux
}

/**
 * Runs \p phase in a forked child (so its peak RSS is its own) and waits for it.
 * \return the child's exit status (0 on success)
 */
inline int
RunInChild(const std::function<int()>& phase)
{
    std::fflush(stdout);
    pid_t pid = fork();
    if (pid == 0)
    {
        int code = phase();
        std::fflush(stdout);
        _exit(code);
    }
    int status = 0;
    waitpid(pid, &status, 0);
    return WIFEXITED(status) ? WEXITSTATUS(status) : 1;
}

} // namespace chakra_bench

#endif // CHAKRA_BENCH_UTIL_H
