/*
 * Temporary files removed when the process is stopped by a termination signal.
 */
#ifndef CHAKRA_TEMPORARY_FILE_GUARD_H
#define CHAKRA_TEMPORARY_FILE_GUARD_H

#include <string>

namespace ns3
{

struct TemporaryFileSlot; // an entry of the list the signal handler walks (temporary-file-guard.cc)

/**
 * \ingroup chakra-trace
 * \brief While armed, the file at a path is removed if the process is stopped by SIGHUP,
 * SIGINT, SIGTERM, SIGPIPE or SIGXFSZ.
 *
 * Outputs are written under a temporary name and renamed when complete (AtomicOutputFile);
 * the destructors remove the temporary on every error path, but a signal whose default action
 * ends the process runs no destructor, and Ctrl-C or a job scheduler's SIGTERM in the middle
 * of a write would leave the temporary behind. The first guard armed installs a handler for
 * those signals, for each one whose disposition is still the default (a handler the program
 * installed itself, or an ignored signal, is left alone). The handler does only
 * async-signal-safe work: it unlinks the path of every armed guard, restores the default
 * action and raises the signal again, so the process still ends by the signal (exit status
 * 128 + the signal's number in a shell). SIGKILL cannot be caught: after `kill -9`, the
 * hidden temporary (".<name>.tmp-XXXXXX") stays.
 *
 * Arming and disarming are lock-free and may be done from several threads; the guards live in
 * a list whose entries are reused and never freed, so the handler never reads freed memory.
 */
class TemporaryFileGuard
{
  public:
    /** A guard that protects nothing until Arm() */
    TemporaryFileGuard() = default;
    /** \param path the file to remove on a termination signal (see Arm) */
    explicit TemporaryFileGuard(const std::string& path);
    /** Disarms (the file itself is left alone). */
    ~TemporaryFileGuard();
    TemporaryFileGuard(const TemporaryFileGuard&) = delete;
    TemporaryFileGuard& operator=(const TemporaryFileGuard&) = delete;
    /** \param other a guard whose path this one takes over (other is left disarmed) */
    TemporaryFileGuard(TemporaryFileGuard&& other) noexcept;
    /**
     * \param other a guard whose path this one takes over (other is left disarmed)
     * \return this guard
     */
    TemporaryFileGuard& operator=(TemporaryFileGuard&& other) noexcept;

    /**
     * Removes \p path on a termination signal from now on (the file need not exist yet: a
     * guard armed before the file is created leaves no window in which it is unprotected).
     * A guard that was armed is disarmed first.
     * \param path the file (relative paths are taken from the current directory when the
     *        signal comes, as unlink does: change directory only with care)
     */
    void Arm(const std::string& path);
    /** Stops protecting the path (call it once the file is renamed into place or removed). */
    void Disarm();
    /** \return true if a path is protected */
    bool IsArmed() const;

    /**
     * mkstemp() with the new file armed in \p guard before any of the signals can be
     * delivered to this thread: they are blocked from before the file exists until it is
     * armed, so that a signal arriving in between still removes it.
     * \param pathTemplate a name ending in "XXXXXX", replaced in place as mkstemp does
     * \param guard the guard to arm with the new file's name
     * \return the open descriptor, or -1 with errno set (guard left disarmed)
     */
    static int MakeTemporary(char* pathTemplate, TemporaryFileGuard& guard);

  private:
    TemporaryFileSlot* m_slot{nullptr}; //!< this guard's entry in the list, null when disarmed
};

} // namespace ns3

#endif // CHAKRA_TEMPORARY_FILE_GUARD_H
