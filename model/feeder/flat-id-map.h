/*
 * An open-addressing hash map from uint64 node ids to values, for the feeder's hot loop.
 */
#ifndef CHAKRA_FLAT_ID_MAP_H
#define CHAKRA_FLAT_ID_MAP_H

#include <cstddef>
#include <cstdint>
#include <utility>
#include <vector>

namespace ns3
{

/**
 * \ingroup chakra-feeder
 * \brief A hash map uint64 -> V with linear probing and values stored in one array.
 *
 * The feeder looks up loaded nodes several times per node; std::unordered_map allocates a
 * node per entry and chases pointers, which dominated its profile. Here a lookup is a
 * multiply, a mask and usually one cache line. Erase shifts the following entries back, so
 * there are no tombstones and lookups stay short. Pointers returned by Find() are valid until
 * the next Insert() or Erase().
 */
template <typename V>
class FlatIdMap
{
  public:
    FlatIdMap()
    {
        Rehash(16);
    }

    /** \param id a key \return the value, or nullptr */
    V* Find(uint64_t id)
    {
        std::size_t slot = Home(id);
        while (m_used[slot])
        {
            if (m_keys[slot] == id)
            {
                return &m_values[slot];
            }
            slot = (slot + 1) & m_mask;
        }
        return nullptr;
    }

    /** \param id a key \return the value, or nullptr */
    const V* Find(uint64_t id) const
    {
        return const_cast<FlatIdMap*>(this)->Find(id);
    }

    /**
     * Inserts a value (the key must not be present).
     * \param id the key \param value the value \return the stored value
     */
    V& Insert(uint64_t id, V value)
    {
        if ((m_size + 1) * 2 > m_keys.size())
        {
            Rehash(m_keys.size() * 2);
        }
        std::size_t slot = Home(id);
        while (m_used[slot])
        {
            slot = (slot + 1) & m_mask;
        }
        m_used[slot] = 1;
        m_keys[slot] = id;
        m_values[slot] = std::move(value);
        ++m_size;
        return m_values[slot];
    }

    /** \param id a key \return true if it was present */
    bool Erase(uint64_t id)
    {
        std::size_t slot = Home(id);
        while (m_used[slot] && m_keys[slot] != id)
        {
            slot = (slot + 1) & m_mask;
        }
        if (!m_used[slot])
        {
            return false;
        }
        // Backward-shift deletion: move later entries of the probe run into the hole when
        // their home slot allows it, so that no lookup ever stops early.
        std::size_t hole = slot;
        std::size_t next = (slot + 1) & m_mask;
        while (m_used[next])
        {
            std::size_t home = Home(m_keys[next]);
            bool movable =
                hole <= next ? (home <= hole || home > next) : (home <= hole && home > next);
            if (movable)
            {
                m_keys[hole] = m_keys[next];
                m_values[hole] = std::move(m_values[next]);
                hole = next;
            }
            next = (next + 1) & m_mask;
        }
        m_used[hole] = 0;
        m_values[hole] = V();
        --m_size;
        return true;
    }

    /** \return the number of entries */
    std::size_t Size() const
    {
        return m_size;
    }

    /** Calls f(id, value) for every entry (in no particular order). */
    template <typename F>
    void ForEach(F f) const
    {
        for (std::size_t i = 0; i < m_keys.size(); ++i)
        {
            if (m_used[i])
            {
                f(m_keys[i], m_values[i]);
            }
        }
    }

  private:
    std::size_t Home(uint64_t id) const
    {
        // Fibonacci hashing: dense ids spread over the table.
        return static_cast<std::size_t>((id * 0x9E3779B97F4A7C15ull) >> m_shift) & m_mask;
    }

    void Rehash(std::size_t capacity)
    {
        std::vector<uint64_t> keys(capacity);
        std::vector<V> values(capacity);
        std::vector<uint8_t> used(capacity, 0);
        keys.swap(m_keys);
        values.swap(m_values);
        used.swap(m_used);
        m_mask = capacity - 1;
        m_shift = 64;
        for (std::size_t c = capacity; c > 1; c >>= 1)
        {
            --m_shift;
        }
        m_size = 0;
        for (std::size_t i = 0; i < keys.size(); ++i)
        {
            if (used[i])
            {
                Insert(keys[i], std::move(values[i]));
            }
        }
    }

    std::vector<uint64_t> m_keys; //!< keys by slot
    std::vector<V> m_values;      //!< values by slot
    std::vector<uint8_t> m_used;  //!< slot occupied (uint8_t: vector<bool> is slow)
    std::size_t m_mask{0};        //!< capacity - 1 (capacity is a power of two)
    unsigned m_shift{0};          //!< 64 - log2(capacity)
    std::size_t m_size{0};        //!< entries
};

} // namespace ns3

#endif // CHAKRA_FLAT_ID_MAP_H
