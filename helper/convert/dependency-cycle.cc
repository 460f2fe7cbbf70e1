#include "dependency-cycle.h"

#include <algorithm>
#include <cstdint>

namespace ns3
{

std::vector<std::size_t>
FindDependencyCycle(const std::vector<std::vector<std::size_t>>& deps)
{
    const std::size_t n = deps.size();
    // Dependents in compressed form: offsets into one array.
    std::vector<std::size_t> pending(n, 0);
    std::vector<std::size_t> offsets(n + 1, 0);
    for (std::size_t i = 0; i < n; ++i)
    {
        pending[i] = deps[i].size();
        for (std::size_t d : deps[i])
        {
            ++offsets[d + 1];
        }
    }
    for (std::size_t i = 0; i < n; ++i)
    {
        offsets[i + 1] += offsets[i];
    }
    std::vector<std::size_t> dependents(offsets[n]);
    std::vector<std::size_t> fill(offsets.begin(), offsets.end() - 1);
    for (std::size_t i = 0; i < n; ++i)
    {
        for (std::size_t d : deps[i])
        {
            dependents[fill[d]++] = i;
        }
    }
    std::vector<std::size_t> ready;
    for (std::size_t i = 0; i < n; ++i)
    {
        if (pending[i] == 0)
        {
            ready.push_back(i);
        }
    }
    std::size_t done = 0;
    while (!ready.empty())
    {
        std::size_t i = ready.back();
        ready.pop_back();
        ++done;
        for (std::size_t k = offsets[i]; k < offsets[i + 1]; ++k)
        {
            if (--pending[dependents[k]] == 0)
            {
                ready.push_back(dependents[k]);
            }
        }
    }
    if (done == n)
    {
        return {};
    }
    // Every node left has a dependency that is left too: walking along such dependencies must
    // come back to a node already seen.
    std::size_t start = 0;
    while (pending[start] == 0)
    {
        ++start;
    }
    const std::size_t unseen = SIZE_MAX;
    std::vector<std::size_t> seenAt(n, unseen);
    std::vector<std::size_t> walk;
    std::size_t i = start;
    while (seenAt[i] == unseen)
    {
        seenAt[i] = walk.size();
        walk.push_back(i);
        for (std::size_t d : deps[i])
        {
            if (pending[d] != 0)
            {
                i = d;
                break;
            }
        }
    }
    std::vector<std::size_t> cycle(walk.begin() + static_cast<std::ptrdiff_t>(seenAt[i]),
                                   walk.end());
    std::reverse(cycle.begin(), cycle.end());
    std::rotate(cycle.begin(), std::min_element(cycle.begin(), cycle.end()), cycle.end());
    return cycle;
}

} // namespace ns3
