#include "op-state-window.h"

#include "ns3/assert.h"

#include <algorithm>

namespace ns3
{

OpStateWindow::OpStateWindow(uint32_t size)
    : m_size(size)
{
}

void
OpStateWindow::Extend(uint32_t op)
{
    const uint32_t needed = op - m_base + 1;
    if (needed > m_mask + 1)
    {
        // Double: unroll the ring into the new buffer from its head.
        std::size_t capacity = m_mask + 1;
        while (capacity < needed)
        {
            capacity *= 2;
        }
        std::vector<State> grown(capacity, WAITING);
        const State* ring = Data();
        for (uint32_t i = 0; i < m_count; ++i)
        {
            grown[i] = ring[(m_head + i) & m_mask];
        }
        m_heap.swap(grown);
        m_head = 0;
        m_mask = static_cast<uint32_t>(capacity - 1);
    }
    State* ring = Data();
    for (uint32_t i = m_count; i < needed; ++i)
    {
        ring[(m_head + i) & m_mask] = WAITING;
    }
    m_count = needed;
    m_peakSpan = std::max(m_peakSpan, m_count);
}

void
OpStateWindow::Set(uint32_t op, State state)
{
    NS_ASSERT(op < m_size);
    if (op < m_base)
    {
        NS_ASSERT_MSG(state == COMPLETE, "an op before the window is complete");
        return;
    }
    if (op - m_base >= m_count)
    {
        if (state == WAITING)
        {
            return; // past the window, every op is waiting
        }
        Extend(op);
    }
    State* ring = Data();
    ring[(m_head + (op - m_base)) & m_mask] = state;
    // Slide past the completed ops at the start.
    while (m_count > 0 && ring[m_head] == COMPLETE)
    {
        m_head = (m_head + 1) & m_mask;
        ++m_base;
        --m_count;
    }
}

} // namespace ns3
