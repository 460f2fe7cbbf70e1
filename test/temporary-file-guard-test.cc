/*
 * Outputs and termination signals (issue 30 item 8): a SIGTERM in the middle of a write left
 * the half-written temporary ("49 MB seen"). Every output is written under a temporary name
 * (AtomicOutputFile), and the temporary must go when SIGHUP, SIGINT, SIGTERM, SIGPIPE or
 * SIGXFSZ ends the process, which must still end by that signal (so a shell or a job
 * scheduler sees what happened). Each case runs in a child process: the library part by
 * fork, the tools by fork and exec.
 */
#define BOOST_TEST_MODULE temporary_file_guard
#include "chakra-test-data.h"

#include "ns3/temporary-file-guard.h"
#include "ns3/trace-file.h"

#include <boost/test/unit_test.hpp>
#include <chrono>
#include <csignal>
#include <cstring>
#include <functional>
#include <sys/wait.h>
#include <thread>
#include <unistd.h>

using chakra_test::FileExists;
using chakra_test::ListDir;
using chakra_test::ReadFileBytes;
using chakra_test::TempDir;
using ns3::AtomicOutputFile;
using ns3::TemporaryFileGuard;

namespace
{

/** How a child process ended. */
struct Ending
{
    bool signalled{false}; //!< ended by a signal
    int signal{0};         //!< which one
    int exitCode{-1};      //!< its exit status otherwise
};

/** Runs \p body in a forked child (exit 0 if it returns) and waits for it. */
Ending
InChild(const std::function<void()>& body)
{
    std::cout.flush();
    pid_t pid = fork();
    if (pid == 0)
    {
        body();
        _exit(0);
    }
    BOOST_REQUIRE(pid > 0);
    int status = 0;
    BOOST_REQUIRE(waitpid(pid, &status, 0) == pid);
    Ending ending;
    ending.signalled = WIFSIGNALED(status);
    ending.signal = ending.signalled ? WTERMSIG(status) : 0;
    ending.exitCode = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
    return ending;
}

/** Hidden temporaries of AtomicOutputFile (".<name>.tmp-XXXXXX") and ".tmp" files in \p dir. */
std::vector<std::string>
Temporaries(const std::string& dir)
{
    std::vector<std::string> found;
    for (const auto& name : ListDir(dir))
    {
        if (name.find(".tmp") != std::string::npos || name.find(".astra-sim") != std::string::npos)
        {
            found.push_back(name);
        }
    }
    return found;
}

} // namespace

BOOST_AUTO_TEST_SUITE(library)

// A half-written output and every signal of the set: the temporary goes, the process still
// ends by the signal it got.
BOOST_AUTO_TEST_CASE(signal_during_write_removes_the_temporary)
{
    for (int signal : {SIGHUP, SIGINT, SIGTERM, SIGPIPE, SIGXFSZ})
    {
        TempDir dir;
        const std::string path = dir.File("out.et");
        Ending ending = InChild([&]() {
            AtomicOutputFile file(path);
            file.Write(std::string(1 << 20, 'x'));
            if (ListDir(dir.Path()).size() != 1)
            {
                _exit(3); // the temporary should be there before the signal
            }
            raise(signal);
            _exit(4); // not reached: the signal ends the process
        });
        BOOST_TEST_INFO("signal " << signal << " (" << strsignal(signal) << ")");
        BOOST_TEST(ending.signalled);
        BOOST_TEST(ending.signal == signal);
        BOOST_TEST(ListDir(dir.Path()).empty());
    }
}

// A committed output stays whole; the one being written when the signal comes goes; several
// temporaries open at once all go.
BOOST_AUTO_TEST_CASE(committed_outputs_stay)
{
    TempDir dir;
    Ending ending = InChild([&]() {
        AtomicOutputFile done(dir.File("done.txt"));
        done.Write("whole\n");
        done.Commit();
        std::vector<std::unique_ptr<AtomicOutputFile>> open;
        for (int i = 0; i < 40; ++i)
        {
            open.push_back(std::make_unique<AtomicOutputFile>(dir.File(std::to_string(i))));
            open.back()->Write("half");
        }
        raise(SIGTERM);
    });
    BOOST_TEST(ending.signalled);
    BOOST_TEST(ending.signal == SIGTERM);
    BOOST_TEST(ListDir(dir.Path()) == std::vector<std::string>{"done.txt"},
               boost::test_tools::per_element());
    BOOST_TEST(ReadFileBytes(dir.File("done.txt")) == "whole\n");
}

// The guard itself: armed paths go, disarmed ones stay, a moved guard keeps protecting, a
// guard may be armed before its file exists.
BOOST_AUTO_TEST_CASE(guard_arm_disarm_move)
{
    TempDir dir;
    Ending ending = InChild([&]() {
        auto touch = [&](const std::string& name) {
            chakra_test::WriteFileBytes(dir.File(name), name);
        };
        TemporaryFileGuard before(dir.File("armed-before-created"));
        touch("armed-before-created");
        touch("disarmed");
        TemporaryFileGuard disarmed(dir.File("disarmed"));
        disarmed.Disarm();
        touch("moved");
        TemporaryFileGuard first(dir.File("moved"));
        TemporaryFileGuard second(std::move(first));
        if (first.IsArmed() || !second.IsArmed())
        {
            _exit(3);
        }
        touch("rearmed-old");
        touch("rearmed-new");
        TemporaryFileGuard rearmed(dir.File("rearmed-old"));
        rearmed.Arm(dir.File("rearmed-new"));
        {
            touch("out-of-scope");
            TemporaryFileGuard scoped(dir.File("out-of-scope"));
        }
        raise(SIGINT);
    });
    BOOST_TEST(ending.signalled);
    BOOST_TEST(ending.signal == SIGINT);
    BOOST_TEST(ListDir(dir.Path()) ==
                   (std::vector<std::string>{"disarmed", "out-of-scope", "rearmed-old"}),
               boost::test_tools::per_element());
}

// A program's own handler is the program's business: the first guard leaves it in place.
BOOST_AUTO_TEST_CASE(program_handler_is_kept)
{
    // This test process never writes an output itself (only its children do), so a child
    // starts with SIGTERM at its default: the program below sets its handler first.
    struct sigaction current;
    BOOST_REQUIRE(sigaction(SIGTERM, nullptr, &current) == 0);
    BOOST_REQUIRE(current.sa_handler == SIG_DFL);
    TempDir dir;
    Ending ending = InChild([&]() {
        static volatile sig_atomic_t handled = 0;
        struct sigaction action;
        std::memset(&action, 0, sizeof(action));
        action.sa_handler = [](int) { handled = 1; };
        sigemptyset(&action.sa_mask);
        sigaction(SIGTERM, &action, nullptr);
        AtomicOutputFile file(dir.File("kept"));
        file.Write("x");
        raise(SIGTERM); // the program's handler runs, the write goes on
        if (handled != 1 || Temporaries(dir.Path()).size() != 1)
        {
            _exit(3);
        }
        file.Commit();
    });
    BOOST_TEST(!ending.signalled);
    BOOST_TEST(ending.exitCode == 0);
    BOOST_TEST(ReadFileBytes(dir.File("kept")) == "x");
}

BOOST_AUTO_TEST_SUITE_END()

BOOST_AUTO_TEST_SUITE(tools)

namespace
{

/**
 * Starts chakra_generator writing a 24 MB trace into \p dir (about half a second), sends
 * \p signal as soon as its temporary appears, and waits for it.
 * \param ignoreHangUp start it with SIGHUP ignored (as nohup does)
 * \param sawTemporary set to true if the temporary was seen before the signal
 */
Ending
SignalGeneratorMidWrite(const TempDir& dir, int signal, bool ignoreHangUp, bool& sawTemporary)
{
    const std::string tool = chakra_test::ToolPath("chakra_generator");
    const std::string prefix = dir.File("dp");
    pid_t pid = fork();
    if (pid == 0)
    {
        if (ignoreHangUp)
        {
            std::signal(SIGHUP, SIG_IGN);
        }
        // Its "wrote 1 traces" line is of no interest here.
        freopen("/dev/null", "w", stdout);
        execl(tool.c_str(),
              tool.c_str(),
              "--workload",
              "data-parallel",
              "--ranks",
              "1",
              "--allow-large",
              "--layers",
              "200000",
              "--layer-bytes",
              "1MiB",
              "--forward-us",
              "1",
              "--backward-us",
              "1",
              "--bucket-bytes",
              "25MiB",
              "--output-prefix",
              prefix.c_str(),
              static_cast<char*>(nullptr));
        _exit(127);
    }
    BOOST_REQUIRE(pid > 0);
    sawTemporary = false;
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(60);
    while (std::chrono::steady_clock::now() < deadline)
    {
        if (!Temporaries(dir.Path()).empty())
        {
            sawTemporary = true;
            break;
        }
        if (waitpid(pid, nullptr, WNOHANG) == pid)
        {
            BOOST_FAIL("chakra_generator ended before its temporary was seen");
        }
        std::this_thread::sleep_for(std::chrono::milliseconds(2));
    }
    // Some bytes written, most not yet.
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
    kill(pid, signal);
    int status = 0;
    BOOST_REQUIRE(waitpid(pid, &status, 0) == pid);
    Ending ending;
    ending.signalled = WIFSIGNALED(status);
    ending.signal = ending.signalled ? WTERMSIG(status) : 0;
    ending.exitCode = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
    return ending;
}

} // namespace

// What the issue saw: SIGTERM (and Ctrl-C's SIGINT) while chakra_generator writes.
BOOST_AUTO_TEST_CASE(sigterm_and_sigint_mid_write_leave_nothing)
{
    for (int signal : {SIGTERM, SIGINT})
    {
        TempDir dir;
        bool saw = false;
        Ending ending = SignalGeneratorMidWrite(dir, signal, false, saw);
        BOOST_TEST_INFO("signal " << strsignal(signal));
        BOOST_TEST(saw);
        BOOST_TEST(ending.signalled);
        BOOST_TEST(ending.signal == signal);
        BOOST_TEST(Temporaries(dir.Path()).empty());
        BOOST_TEST(!FileExists(dir.File("dp.0.et"))); // killed before the output was whole
    }
}

// Started under nohup (SIGHUP ignored): the hang-up changes nothing, the output is written.
BOOST_AUTO_TEST_CASE(ignored_hangup_changes_nothing)
{
    TempDir dir;
    bool saw = false;
    Ending ending = SignalGeneratorMidWrite(dir, SIGHUP, true, saw);
    BOOST_TEST(saw);
    BOOST_TEST(!ending.signalled);
    BOOST_TEST(ending.exitCode == 0);
    BOOST_TEST(Temporaries(dir.Path()).empty());
    BOOST_TEST(FileExists(dir.File("dp.0.et")));
}

BOOST_AUTO_TEST_SUITE_END()
