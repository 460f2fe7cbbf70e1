#include "mpi-context.h"

#include "ns3/global-value.h"
#include "ns3/log.h"
#include "ns3/string.h"

#include <algorithm>
#include <cstdlib>
#include <stdexcept>

#ifdef NS3_MPI
#include "ns3/mpi-interface.h"

#include <mpi.h>
#endif

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("ChakraMpiContext");

namespace
{

#ifdef NS3_MPI
/** Our messages' tag: ns-3's packet messages use tag 0 on the same communicator. */
constexpr int kTag = 0x6368;
/** Largest piece of one message (MPI counts are int). */
constexpr uint64_t kPiece = uint64_t(1) << 30;

void
CheckEnabled(const char* what)
{
    if (!MpiInterface::IsEnabled())
    {
        throw std::logic_error(std::string("MpiContext::") + what + " without MPI enabled");
    }
}
#endif

uint32_t
EnvironmentNumber(const char* name)
{
    const char* value = std::getenv(name);
    if (!value || !*value)
    {
        return 0;
    }
    char* end = nullptr;
    const unsigned long number = std::strtoul(value, &end, 10);
    return *end == '\0' ? static_cast<uint32_t>(number) : 0;
}

} // namespace

bool
MpiContext::IsAvailable()
{
#ifdef NS3_MPI
    return true;
#else
    return false;
#endif
}

bool
MpiContext::IsEnabled()
{
#ifdef NS3_MPI
    return MpiInterface::IsEnabled();
#else
    return false;
#endif
}

uint32_t
MpiContext::GetProcessId()
{
#ifdef NS3_MPI
    return MpiInterface::IsEnabled() ? MpiInterface::GetSystemId() : 0;
#else
    return 0;
#endif
}

uint32_t
MpiContext::GetProcessCount()
{
#ifdef NS3_MPI
    return MpiInterface::IsEnabled() ? MpiInterface::GetSize() : 1;
#else
    return 1;
#endif
}

#ifdef NS3_MPI
void
MpiContext::Send(uint32_t to, const std::string& bytes)
{
    CheckEnabled("Send");
    MPI_Comm comm = MpiInterface::GetCommunicator();
    uint64_t size = bytes.size();
    MPI_Send(&size, 1, MPI_UINT64_T, static_cast<int>(to), kTag, comm);
    for (uint64_t offset = 0; offset < size; offset += kPiece)
    {
        const uint64_t piece = std::min(kPiece, size - offset);
        MPI_Send(bytes.data() + offset,
                 static_cast<int>(piece),
                 MPI_CHAR,
                 static_cast<int>(to),
                 kTag,
                 comm);
    }
}

std::string
MpiContext::Receive(uint32_t from)
{
    CheckEnabled("Receive");
    MPI_Comm comm = MpiInterface::GetCommunicator();
    uint64_t size = 0;
    MPI_Recv(&size, 1, MPI_UINT64_T, static_cast<int>(from), kTag, comm, MPI_STATUS_IGNORE);
    std::string bytes(size, '\0');
    for (uint64_t offset = 0; offset < size; offset += kPiece)
    {
        const uint64_t piece = std::min(kPiece, size - offset);
        MPI_Recv(&bytes[offset],
                 static_cast<int>(piece),
                 MPI_CHAR,
                 static_cast<int>(from),
                 kTag,
                 comm,
                 MPI_STATUS_IGNORE);
    }
    return bytes;
}

uint64_t
MpiContext::Sum(uint64_t value)
{
    if (!MpiInterface::IsEnabled())
    {
        return value;
    }
    uint64_t sum = 0;
    MPI_Allreduce(&value, &sum, 1, MPI_UINT64_T, MPI_SUM, MpiInterface::GetCommunicator());
    return sum;
}
#else
void
MpiContext::Send(uint32_t /* to */, const std::string& /* bytes */)
{
    throw std::logic_error("MpiContext::Send: this ns-3 has no MPI");
}

std::string
MpiContext::Receive(uint32_t /* from */)
{
    throw std::logic_error("MpiContext::Receive: this ns-3 has no MPI");
}

uint64_t
MpiContext::Sum(uint64_t value)
{
    return value;
}
#endif

std::vector<std::string>
MpiContext::GatherToFirst(const std::string& mine)
{
    const uint32_t self = GetProcessId();
    if (self != 0)
    {
        Send(0, mine);
        return {};
    }
    std::vector<std::string> all{mine};
    for (uint32_t from = 1; from < GetProcessCount(); ++from)
    {
        all.push_back(Receive(from));
    }
    return all;
}

uint32_t
MpiContext::LaunchedProcessCount()
{
    // Open MPI's mpirun, MPICH and Slurm (PMI), PMIx launchers.
    for (const char* name : {"OMPI_COMM_WORLD_SIZE", "PMI_SIZE", "PMIX_SIZE"})
    {
        if (const uint32_t size = EnvironmentNumber(name))
        {
            return size;
        }
    }
    // A PMIx launcher that names only the rank: a rank above 0 means several processes.
    return EnvironmentNumber("PMIX_RANK") > 0 ? 2 : 1;
}

MpiSession::MpiSession(int* argc, char*** argv)
{
    NS_LOG_FUNCTION(this);
    const bool launched =
        std::getenv("OMPI_COMM_WORLD_SIZE") || std::getenv("PMI_SIZE") || std::getenv("PMIX_RANK");
#ifdef NS3_MPI
    if (!launched || MpiInterface::IsEnabled())
    {
        return;
    }
    // MpiInterface::Enable picks its interface (granted time window or null messages) from
    // the simulator type bound now, so a choice still waiting in argv (a program that parses
    // its flags after this) is bound first; with the wrong interface the null-message
    // simulator crashed (tcp) or waited for ever (rdma) on its first receive.
    const std::string flag = "--SimulatorImplementationType";
    for (int i = 1; i < *argc; ++i)
    {
        const std::string arg = (*argv)[i];
        if (arg.compare(0, flag.size() + 1, flag + "=") == 0)
        {
            GlobalValue::Bind("SimulatorImplementationType",
                              StringValue(arg.substr(flag.size() + 1)));
        }
        else if (arg == flag && i + 1 < *argc)
        {
            GlobalValue::Bind("SimulatorImplementationType", StringValue((*argv)[i + 1]));
        }
    }
    StringValue chosen;
    GlobalValue::GetValueByName("SimulatorImplementationType", chosen);
    if (chosen.Get() != "ns3::NullMessageSimulatorImpl")
    {
        GlobalValue::Bind("SimulatorImplementationType",
                          StringValue("ns3::DistributedSimulatorImpl"));
    }
    MpiInterface::Enable(argc, argv);
    m_enabled = true;
#else
    (void)argc;
    (void)argv;
    if (launched && MpiContext::LaunchedProcessCount() > 1)
    {
        throw std::runtime_error(
            "launched by mpirun on " + std::to_string(MpiContext::LaunchedProcessCount()) +
            " processes, but this build's ns-3 has no MPI (Debian's is built without it): every "
            "process would run the whole simulation. Build one with MPI: "
            "scripts/build-ns3-mpi.sh (doc/building.md)");
    }
#endif
}

MpiSession::~MpiSession()
{
    NS_LOG_FUNCTION(this);
#ifdef NS3_MPI
    if (m_enabled && MpiInterface::IsEnabled())
    {
        MpiInterface::Disable();
    }
#endif
}

int
MpiSession::Abort(int code)
{
    NS_LOG_FUNCTION(this);
#ifdef NS3_MPI
    if (m_enabled && MpiInterface::IsEnabled() && MpiInterface::GetSize() > 1)
    {
        MPI_Abort(MpiInterface::GetCommunicator(), code);
    }
#endif
    return code;
}

} // namespace ns3
