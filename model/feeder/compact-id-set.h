/*
 * A set of 64-bit node ids that stays small when the ids are mostly dense.
 */
#ifndef CHAKRA_COMPACT_ID_SET_H
#define CHAKRA_COMPACT_ID_SET_H

#include <array>
#include <cstdint>
#include <memory>
#include <unordered_map>
#include <vector>

namespace ns3
{

/**
 * \ingroup chakra-feeder
 * \brief A set of uint64 ids stored in blocks of 65,536 consecutive ids.
 *
 * A block holds a sorted array of 16-bit offsets while it is sparse and switches to a bitmap
 * (8 KiB) once it holds more than 4,096 ids, so a dense run of ids costs about one bit each and
 * scattered ids about two bytes each. The feeder keeps every finished node id here, so a child
 * read long after its parent finished is still released, at any trace size.
 */
class CompactIdSet
{
  public:
    /** \param id the id to add \return true if it was not in the set */
    bool Insert(uint64_t id);
    /** \param id an id \return true if it is in the set */
    bool Contains(uint64_t id) const;
    /** \return the number of ids in the set */
    uint64_t Size() const;
    /** \return an estimate of the heap memory used, in bytes */
    uint64_t MemoryBytes() const;

  private:
    /** Ids sharing their upper 48 bits. */
    struct Block
    {
        std::vector<uint16_t> sorted;                     //!< the offsets while the block is sparse
        std::unique_ptr<std::array<uint64_t, 1024>> bits; //!< the bitmap once dense
        uint32_t count{0};                                //!< ids in the block
    };

    /** Converts a sparse block to a bitmap. */
    static void Densify(Block& block);

    std::unordered_map<uint64_t, Block> m_blocks; //!< by id >> 16
    mutable const Block* m_lastBlock{nullptr};    //!< cache of the last looked-up block
    mutable uint64_t m_lastKey{~0ull};            //!< its key (~0: none)
    uint64_t m_size{0};                           //!< ids in the set
};

} // namespace ns3

#endif // CHAKRA_COMPACT_ID_SET_H
