#include "interned-string.h"

#include <mutex>
#include <unordered_set>

namespace ns3
{

namespace
{

/** The pool: an unordered_set's elements keep their address when it grows. */
struct Pool
{
    std::mutex mutex; //!< for scripts that run simulations in threads
    std::unordered_set<std::string> strings;
};

Pool&
ThePool()
{
    // Never destroyed: records may outlive static destruction order (a report held in a
    // static), and the process frees the memory at exit.
    static Pool* pool = new Pool;
    return *pool;
}

const std::string*
Intern(const std::string& text)
{
    Pool& pool = ThePool();
    std::lock_guard<std::mutex> lock(pool.mutex);
    return &*pool.strings.insert(text).first;
}

} // namespace

InternedString::InternedString()
{
    static const std::string* const empty = Intern("");
    m_text = empty;
}

InternedString::InternedString(const std::string& text)
    : m_text(Intern(text))
{
}

InternedString::InternedString(const char* text)
    : m_text(Intern(text))
{
}

std::size_t
InternedString::PoolSize()
{
    Pool& pool = ThePool();
    std::lock_guard<std::mutex> lock(pool.mutex);
    return pool.strings.size();
}

} // namespace ns3
