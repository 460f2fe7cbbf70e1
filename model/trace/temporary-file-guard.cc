#include "temporary-file-guard.h"

#include <atomic>
#include <cerrno>
#include <csignal>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <pthread.h>
#include <unistd.h>

namespace ns3
{

namespace
{

/** States of a TemporaryFileSlot. */
constexpr int kFree = 0;
constexpr int kClaimed = 1;
constexpr int kArmed = 2;
constexpr int kRemoving = 3;

} // namespace

/**
 * One entry of the list the signal handler walks. An entry is never freed (the handler may
 * be reading it at any moment); a disarmed entry is reused by the next guard armed, so the
 * list is as long as the most temporaries that were ever armed at once.
 *
 * States: kFree (reusable), kClaimed (its owner is writing the path: the handler skips it),
 * kArmed (the handler may take it), kRemoving (the handler took it; nobody touches it again).
 */
struct TemporaryFileSlot
{
    std::atomic<int> state{kFree};    //!< kFree, kClaimed, kArmed or kRemoving
    char* path{nullptr};              //!< NUL-terminated, written only while kClaimed
    std::size_t capacity{0};          //!< bytes allocated for path
    TemporaryFileSlot* next{nullptr}; //!< the entry pushed before this one (fixed when pushed)
};

namespace
{

// Lock-free atomics are the only shared state a signal handler may touch (C++17 [support.signal]).
static_assert(std::atomic<int>::is_always_lock_free, "the signal handler needs lock-free atomics");
static_assert(std::atomic<TemporaryFileSlot*>::is_always_lock_free,
              "the signal handler needs lock-free atomics");

/** The signals whose default action ends the process and that come from outside during a
 *  write: a terminal's hang-up and Ctrl-C, kill and job schedulers, a closed pipe on stdout,
 *  the file-size limit. */
constexpr int kSignals[] = {SIGHUP, SIGINT, SIGTERM, SIGPIPE, SIGXFSZ};

/** Head of the list of entries (newest first). */
std::atomic<TemporaryFileSlot*> g_head{nullptr};

/** Guards the one-time installation of the handlers. */
std::once_flag g_installed;

/** The signal mask that blocks kSignals. */
sigset_t
SignalSet()
{
    sigset_t set;
    sigemptyset(&set);
    for (int signal : kSignals)
    {
        sigaddset(&set, signal);
    }
    return set;
}

/**
 * The handler: removes every armed path, then lets the signal end the process as it would
 * have without us. Only async-signal-safe calls (unlink, sigaction, raise) and lock-free
 * atomics; errno is kept for the interrupted code in case the signal is caught again.
 */
extern "C" void
RemoveTemporariesAndDie(int signal)
{
    const int savedErrno = errno;
    for (TemporaryFileSlot* slot = g_head.load(std::memory_order_acquire); slot != nullptr;
         slot = slot->next)
    {
        int expected = kArmed;
        if (slot->state.compare_exchange_strong(expected, kRemoving, std::memory_order_acq_rel))
        {
            unlink(slot->path);
        }
    }
    struct sigaction action;
    std::memset(&action, 0, sizeof(action));
    action.sa_handler = SIG_DFL;
    sigemptyset(&action.sa_mask);
    sigaction(signal, &action, nullptr);
    // Blocked while this handler runs: delivered, with the default action, when it returns.
    raise(signal);
    errno = savedErrno;
}

/** Installs the handler for each signal still at its default disposition. */
void
InstallHandlers()
{
    std::call_once(g_installed, []() {
        for (int signal : kSignals)
        {
            struct sigaction old;
            if (sigaction(signal, nullptr, &old) != 0)
            {
                continue;
            }
            if ((old.sa_flags & SA_SIGINFO) != 0 || old.sa_handler != SIG_DFL)
            {
                continue; // the program's own handler, or an ignored signal (nohup): theirs
            }
            struct sigaction action;
            std::memset(&action, 0, sizeof(action));
            action.sa_handler = RemoveTemporariesAndDie;
            // One removal pass at a time: the other signals wait until the process is gone.
            action.sa_mask = SignalSet();
            sigaction(signal, &action, nullptr);
        }
    });
}

} // namespace

TemporaryFileGuard::TemporaryFileGuard(const std::string& path)
{
    Arm(path);
}

TemporaryFileGuard::~TemporaryFileGuard()
{
    Disarm();
}

TemporaryFileGuard::TemporaryFileGuard(TemporaryFileGuard&& other) noexcept
    : m_slot(other.m_slot)
{
    other.m_slot = nullptr;
}

TemporaryFileGuard&
TemporaryFileGuard::operator=(TemporaryFileGuard&& other) noexcept
{
    if (this != &other)
    {
        Disarm();
        m_slot = other.m_slot;
        other.m_slot = nullptr;
    }
    return *this;
}

void
TemporaryFileGuard::Arm(const std::string& path)
{
    Disarm();
    InstallHandlers();
    TemporaryFileSlot* slot = nullptr;
    for (TemporaryFileSlot* entry = g_head.load(std::memory_order_acquire); entry != nullptr;
         entry = entry->next)
    {
        int expected = kFree;
        if (entry->state.compare_exchange_strong(expected, kClaimed, std::memory_order_acq_rel))
        {
            slot = entry;
            break;
        }
    }
    if (slot == nullptr)
    {
        slot = new TemporaryFileSlot;
        slot->state.store(kClaimed, std::memory_order_relaxed);
        TemporaryFileSlot* head = g_head.load(std::memory_order_relaxed);
        do
        {
            slot->next = head;
        } while (!g_head.compare_exchange_weak(head,
                                               slot,
                                               std::memory_order_release,
                                               std::memory_order_relaxed));
    }
    // The handler does not read a claimed entry, so its path may be replaced here.
    if (slot->capacity < path.size() + 1)
    {
        delete[] slot->path;
        slot->capacity = path.size() + 1;
        slot->path = new char[slot->capacity];
    }
    std::memcpy(slot->path, path.c_str(), path.size() + 1);
    slot->state.store(kArmed, std::memory_order_release);
    m_slot = slot;
}

void
TemporaryFileGuard::Disarm()
{
    if (m_slot == nullptr)
    {
        return;
    }
    int expected = kArmed;
    // Fails only if the handler took the entry: the process is ending, leave it to it.
    m_slot->state.compare_exchange_strong(expected, kFree, std::memory_order_acq_rel);
    m_slot = nullptr;
}

bool
TemporaryFileGuard::IsArmed() const
{
    return m_slot != nullptr;
}

int
TemporaryFileGuard::MakeTemporary(char* pathTemplate, TemporaryFileGuard& guard)
{
    InstallHandlers();
    const sigset_t blocked = SignalSet();
    sigset_t previous;
    pthread_sigmask(SIG_BLOCK, &blocked, &previous);
    const int fd = mkstemp(pathTemplate);
    const int error = errno;
    if (fd >= 0)
    {
        try
        {
            guard.Arm(pathTemplate);
        }
        catch (...) // out of memory: no file without its guard
        {
            close(fd);
            unlink(pathTemplate);
            pthread_sigmask(SIG_SETMASK, &previous, nullptr);
            throw;
        }
    }
    // A signal that came meanwhile is delivered here, and removes the armed file.
    pthread_sigmask(SIG_SETMASK, &previous, nullptr);
    errno = error;
    return fd;
}

} // namespace ns3
