/*
 * MpiContext: this process's place in a distributed (MPI) simulation, and the few messages the
 * module exchanges itself after a run (the report and the timeline gathered to process 0).
 * MpiSession: what a program's main does to take part in one.
 *
 * Compiled in every build. With an ns-3 built without MPI (Debian's), there is one process: id
 * 0 of 1, and the exchanges are never called.
 */
#ifndef CHAKRA_MPI_CONTEXT_H
#define CHAKRA_MPI_CONTEXT_H

#include <cstdint>
#include <string>
#include <vector>

namespace ns3
{

/**
 * \ingroup chakra-distributed
 * \brief The MPI process this simulation runs in (ns-3's MpiInterface), or the only process.
 *
 * The exchanges use ns-3's communicator (MpiInterface::GetCommunicator) with a tag of their
 * own, so they never meet ns-3's packet messages (tag 0). They are collective in the MPI sense:
 * every process must make the same calls in the same order.
 */
class MpiContext
{
  public:
    /** \return true if this build's ns-3 has MPI (configured with --enable-mpi) */
    static bool IsAvailable();
    /** \return true if MPI is enabled in this process (MpiInterface::Enable was called) */
    static bool IsEnabled();
    /** \return this process's id (its MPI rank; 0 without MPI) */
    static uint32_t GetProcessId();
    /** \return the number of processes (1 without MPI) */
    static uint32_t GetProcessCount();

    /**
     * Sends bytes to another process (blocking; any size: sent in pieces of at most 1 GiB).
     * \throws std::logic_error without MPI
     */
    static void Send(uint32_t to, const std::string& bytes);
    /**
     * Receives what Send sent from \p from.
     * \throws std::logic_error without MPI
     */
    static std::string Receive(uint32_t from);
    /**
     * \param mine this process's bytes
     * \return on process 0, every process's bytes by process id (its own first); elsewhere
     *         nothing
     */
    static std::vector<std::string> GatherToFirst(const std::string& mine);
    /** \return the sum of \p value over all processes (every process gets it) */
    static uint64_t Sum(uint64_t value);

    /**
     * \return the number of processes the MPI launcher (mpirun, srun) started this program
     *         among, read from its environment: 1 when not launched by one
     */
    static uint32_t LaunchedProcessCount();
};

/**
 * \ingroup chakra-distributed
 * \brief Enables MPI for a program's main when it was launched by mpirun (or srun), and
 * finalizes it at the end.
 *
 * \code
 *   int main(int argc, char* argv[])
 *   {
 *       CommandLine cmd;  ... cmd.Parse(argc, argv);
 *       MpiSession mpi(&argc, &argv);
 *       ...
 *   }
 * \endcode
 * When launched by an MPI launcher, it selects ns-3's DistributedSimulatorImpl (the
 * granted-time-window algorithm) unless the command line chose ns3::NullMessageSimulatorImpl
 * (`--SimulatorImplementationType=...`, read from argv here, so the session may come before
 * or after the program parses its flags), and calls MpiInterface::Enable. Launched without one,
 * nothing changes: the program runs as it always does, on one process.
 */
class MpiSession
{
  public:
    /**
     * \throws std::runtime_error when launched by mpirun on several processes but this
     *         build's ns-3 has no MPI (every process would run the whole simulation)
     */
    MpiSession(int* argc, char*** argv);
    /** Finalizes MPI (MpiInterface::Disable) if this session enabled it. */
    ~MpiSession();
    MpiSession(const MpiSession&) = delete;
    MpiSession& operator=(const MpiSession&) = delete;

    /**
     * Ends every process of the job with \p code (MPI_Abort) when there are several (an error
     * in one process would otherwise leave the others waiting for it); returns \p code
     * otherwise.
     */
    int Abort(int code);

  private:
    bool m_enabled{false};
};

} // namespace ns3

#endif // CHAKRA_MPI_CONTEXT_H
