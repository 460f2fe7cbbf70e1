#include "collective-communicator.h"

#include <unordered_map>

namespace ns3
{

SharedRankList
ShareRankList(std::vector<uint32_t> list)
{
    // Lists by content hash; a weak reference, so that a list lives as long as its holders.
    // Ranks are added one by one at install time, each with the same world list: the last
    // list shared is checked first.
    static std::unordered_multimap<uint64_t, std::weak_ptr<const std::vector<uint32_t>>> shared;
    uint64_t hash = 1469598103934665603ull;
    for (uint32_t value : list)
    {
        hash = (hash ^ value) * 1099511628211ull;
    }
    hash ^= list.size();
    auto range = shared.equal_range(hash);
    for (auto it = range.first; it != range.second;)
    {
        SharedRankList held = it->second.lock();
        if (!held)
        {
            it = shared.erase(it);
            continue;
        }
        if (*held == list)
        {
            return held;
        }
        ++it;
    }
    static std::size_t insertions = 0;
    if (++insertions % 1024 == 0)
    {
        // Forget lists nobody holds any more (a process may run many simulations).
        for (auto it = shared.begin(); it != shared.end();)
        {
            it = it->second.expired() ? shared.erase(it) : std::next(it);
        }
    }
    SharedRankList made(new std::vector<uint32_t>(std::move(list)));
    shared.emplace(hash, made);
    return made;
}

} // namespace ns3
