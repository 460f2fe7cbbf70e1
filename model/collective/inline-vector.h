/*
 * InlineVector: a growing array whose first few elements live inside the owning object.
 */

#ifndef CHAKRA_INLINE_VECTOR_H
#define CHAKRA_INLINE_VECTOR_H

#include <array>
#include <cstddef>
#include <vector>

namespace ns3
{

/**
 * A growing array whose first N elements live inside the object itself, for the few entries
 * a per-rank object keeps on its hot path (a ring schedule's passes): reading them touches
 * the object's own cache lines, not a separate heap block. Beyond N the elements move to the
 * heap once, as a std::vector's would.
 */
template <typename T, std::size_t N>
class InlineVector
{
  public:
    /** Appends \p value. */
    void push_back(const T& value)
    {
        if (m_size < N)
        {
            m_inline[m_size++] = value;
            return;
        }
        if (m_size == N)
        {
            m_heap.assign(m_inline.begin(), m_inline.end());
        }
        m_heap.push_back(value);
        ++m_size;
    }

    /** \return the number of elements */
    std::size_t size() const
    {
        return m_size;
    }

    /** \return true if there are none */
    bool empty() const
    {
        return m_size == 0;
    }

    /** \param i < size() \return element \p i */
    const T& operator[](std::size_t i) const
    {
        return m_size <= N ? m_inline[i] : m_heap[i];
    }

    /** \return the first element (size() > 0) */
    const T& front() const
    {
        return (*this)[0];
    }

  private:
    // The count first: an owner that reads the first element reads the count in the same
    // cache line.
    std::size_t m_size{0};
    std::vector<T> m_heap; //!< every element, once there are more than N
    std::array<T, N> m_inline{};
};

} // namespace ns3

#endif // CHAKRA_INLINE_VECTOR_H
