#include "compact-id-set.h"

#include <algorithm>

namespace ns3
{

namespace
{
/** A sparse block becomes a bitmap past this many ids (where 2 bytes/id exceed 8 KiB). */
constexpr uint32_t kSparseLimit = 4096;
} // namespace

void
CompactIdSet::Densify(Block& block)
{
    block.bits = std::make_unique<std::array<uint64_t, 1024>>();
    block.bits->fill(0);
    for (uint16_t offset : block.sorted)
    {
        (*block.bits)[offset >> 6] |= 1ull << (offset & 63);
    }
    std::vector<uint16_t>().swap(block.sorted);
}

bool
CompactIdSet::Insert(uint64_t id)
{
    uint64_t key = id >> 16;
    auto offset = static_cast<uint16_t>(id & 0xffff);
    Block& block = m_blocks[key]; // element addresses survive rehashing: the cache stays valid
    if (block.bits)
    {
        uint64_t& word = (*block.bits)[offset >> 6];
        uint64_t mask = 1ull << (offset & 63);
        if ((word & mask) != 0)
        {
            return false;
        }
        word |= mask;
    }
    else
    {
        auto it = std::lower_bound(block.sorted.begin(), block.sorted.end(), offset);
        if (it != block.sorted.end() && *it == offset)
        {
            return false;
        }
        block.sorted.insert(it, offset);
        if (block.sorted.size() > kSparseLimit)
        {
            Densify(block);
        }
    }
    ++block.count;
    ++m_size;
    return true;
}

bool
CompactIdSet::Contains(uint64_t id) const
{
    uint64_t key = id >> 16;
    const Block* block = nullptr;
    if (key == m_lastKey)
    {
        block = m_lastBlock;
    }
    else
    {
        auto it = m_blocks.find(key);
        if (it == m_blocks.end())
        {
            return false;
        }
        block = &it->second;
        // Lookups cluster (a node's parents are usually close to it): remember the block.
        m_lastBlock = block;
        m_lastKey = key;
    }
    auto offset = static_cast<uint16_t>(id & 0xffff);
    if (block->bits)
    {
        return ((*block->bits)[offset >> 6] >> (offset & 63) & 1) != 0;
    }
    return std::binary_search(block->sorted.begin(), block->sorted.end(), offset);
}

uint64_t
CompactIdSet::Size() const
{
    return m_size;
}

uint64_t
CompactIdSet::MemoryBytes() const
{
    uint64_t bytes = m_blocks.bucket_count() * sizeof(void*);
    for (const auto& [key, block] : m_blocks)
    {
        bytes += sizeof(key) + sizeof(block) + 16;
        bytes += block.bits ? sizeof(*block.bits) : block.sorted.capacity() * sizeof(uint16_t);
    }
    return bytes;
}

} // namespace ns3
