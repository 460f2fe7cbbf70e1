/*
 * SmallArray: a growing array of plain values whose first N elements live inside the owner.
 */

#ifndef CHAKRA_SMALL_ARRAY_H
#define CHAKRA_SMALL_ARRAY_H

#include <algorithm>
#include <cstdint>
#include <memory>
#include <type_traits>

namespace ns3
{

/**
 * A growing array of trivially copyable values whose first N elements live inside the object
 * that holds it, for the few entries a per-rank or per-flow object reads on the hot path: a
 * ring schedule's passes, the max-min network's flows (their paths) and links (the flows
 * crossing them). At thousands of ranks these are read cold: kept inside their owner's cache
 * lines they cost no separate heap block, which a std::vector would (one more cache miss each
 * time). Past N every element moves to one heap block, which grows by doubling.
 */
template <typename T, uint32_t N>
class SmallArray
{
    static_assert(std::is_trivially_copyable_v<T>, "SmallArray holds plain values");

  public:
    SmallArray() = default;
    SmallArray(const SmallArray&) = delete;
    SmallArray& operator=(const SmallArray&) = delete;
    SmallArray(SmallArray&&) noexcept = default;
    SmallArray& operator=(SmallArray&&) noexcept = default;

    /** \return the number of elements */
    uint32_t size() const
    {
        return m_size;
    }

    /** \return true if there are none */
    bool empty() const
    {
        return m_size == 0;
    }

    /** \return the elements, contiguous */
    T* data()
    {
        return m_heap ? m_heap.get() : m_inline;
    }

    /** \return the elements, contiguous */
    const T* data() const
    {
        return m_heap ? m_heap.get() : m_inline;
    }

    T* begin()
    {
        return data();
    }

    T* end()
    {
        return data() + m_size;
    }

    const T* begin() const
    {
        return data();
    }

    const T* end() const
    {
        return data() + m_size;
    }

    /** \param i < size() \return element \p i */
    T& operator[](uint32_t i)
    {
        return data()[i];
    }

    /** \param i < size() \return element \p i */
    const T& operator[](uint32_t i) const
    {
        return data()[i];
    }

    /** \return the first element (size() > 0) */
    const T& front() const
    {
        return data()[0];
    }

    /** \return the last element (size() > 0) */
    const T& back() const
    {
        return data()[m_size - 1];
    }

    /** Appends \p value. */
    void push_back(const T& value)
    {
        Reserve(m_size + 1);
        data()[m_size++] = value;
    }

    /** Drops the last element (size() > 0). */
    void pop_back()
    {
        --m_size;
    }

    /** Drops every element (keeps the heap block, if any, for the next ones). */
    void clear()
    {
        m_size = 0;
    }

    /** Replaces the elements with \p count copies of \p value. */
    void assign(uint32_t count, const T& value)
    {
        m_size = 0;
        Reserve(count);
        std::fill_n(data(), count, value);
        m_size = count;
    }

  private:
    /** Makes room for \p count elements. */
    void Reserve(uint32_t count)
    {
        const uint32_t room = m_heap ? m_capacity : N;
        if (count <= room)
        {
            return;
        }
        const uint32_t capacity = std::max(count, 2 * room);
        std::unique_ptr<T[]> grown(new T[capacity]);
        std::copy_n(data(), m_size, grown.get());
        m_heap = std::move(grown);
        m_capacity = capacity;
    }

    // The size and the heap pointer first: an owner that puts the array at the end of a
    // cache line keeps them and the first elements there.
    uint32_t m_size{0};
    uint32_t m_capacity{0};      //!< of m_heap
    std::unique_ptr<T[]> m_heap; //!< every element, once more than N were held
    T m_inline[N]{};
};

} // namespace ns3

#endif // CHAKRA_SMALL_ARRAY_H
