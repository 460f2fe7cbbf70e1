#include "comm-record.h"

namespace ns3
{

static_assert(sizeof(CommRecord) <= 96, "CommRecord is kept per operation per rank: keep it small");

CommRecordList::Iterator::Iterator(
    const std::vector<std::shared_ptr<const std::vector<CommRecord>>>* parts,
    std::size_t part)
    : m_parts(parts),
      m_part(part)
{
}

CommRecordList::Iterator::reference
CommRecordList::Iterator::operator*() const
{
    return (*(*m_parts)[m_part])[m_index];
}

CommRecordList::Iterator::pointer
CommRecordList::Iterator::operator->() const
{
    return &**this;
}

CommRecordList::Iterator&
CommRecordList::Iterator::operator++()
{
    if (++m_index == (*m_parts)[m_part]->size())
    {
        ++m_part;
        m_index = 0;
    }
    return *this;
}

CommRecordList::Iterator
CommRecordList::Iterator::operator++(int)
{
    Iterator before = *this;
    ++*this;
    return before;
}

bool
CommRecordList::Iterator::operator==(const Iterator& other) const
{
    return m_parts == other.m_parts && m_part == other.m_part && m_index == other.m_index;
}

bool
CommRecordList::Iterator::operator!=(const Iterator& other) const
{
    return !(*this == other);
}

void
CommRecordList::Append(std::shared_ptr<const std::vector<CommRecord>> part)
{
    if (part && !part->empty())
    {
        m_size += part->size();
        m_parts.push_back(std::move(part));
    }
}

CommRecordList::Iterator
CommRecordList::begin() const
{
    return Iterator(&m_parts, 0);
}

CommRecordList::Iterator
CommRecordList::end() const
{
    return Iterator(&m_parts, m_parts.size());
}

std::size_t
CommRecordList::size() const
{
    return m_size;
}

bool
CommRecordList::empty() const
{
    return m_size == 0;
}

} // namespace ns3
