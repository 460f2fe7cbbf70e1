/*
 * CommRecord and CommRecordList: the communication operations of a run, as each rank saw them.
 */
#ifndef CHAKRA_COMM_RECORD_H
#define CHAKRA_COMM_RECORD_H

#include "interned-string.h"

#include "ns3/nstime.h"

#include <cstddef>
#include <cstdint>
#include <iterator>
#include <memory>
#include <vector>

namespace ns3
{

/**
 * \ingroup chakra-application
 * \brief One communication operation as this rank saw it (for the report).
 *
 * 96 bytes: a large run keeps one per operation per rank until the report is written (a
 * 16,384-GPU LLM step about 18 million), so the strings are interned and the fields packed.
 */
struct CommRecord
{
    uint32_t rank{0};         //!< this rank
    uint32_t commSize{1};     //!< members of the communicator
    uint64_t nodeId{0};       //!< trace node
    InternedString name;      //!< node name
    InternedString kind;      //!< ALL_REDUCE, ..., SEND, RECV
    uint64_t bytes{0};        //!< comm_size
    InternedString pg;        //!< process group ("" = world)
    InternedString algorithm; //!< algorithm used (collectives)
    uint64_t seq{0};          //!< call number on the communicator (collectives)
    int64_t peer{-1};         //!< peer rank (send/recv)
    Time start;               //!< issued (relative to replay start)
    Time end;                 //!< completed (relative to replay start)
    double traceMicros{0};    //!< duration recorded in the trace (measured, if any)
};

/**
 * \ingroup chakra-application
 * \brief The records of several ranks read as one sequence, without copying them.
 *
 * A report holds every rank's records; copying them into one vector doubled a large run's
 * memory at its end. The list keeps each rank's vector (shared with the rank) in the order
 * added and iterates over them in turn.
 */
class CommRecordList
{
  public:
    /** Forward iterator over the records of every part, in order. */
    class Iterator
    {
      public:
        using iterator_category = std::forward_iterator_tag;
        using value_type = CommRecord;
        using difference_type = std::ptrdiff_t;
        using pointer = const CommRecord*;
        using reference = const CommRecord&;

        Iterator() = default;
        /**
         * \param parts the list's parts (non-empty vectors)
         * \param part the part (parts->size() for the end)
         */
        Iterator(const std::vector<std::shared_ptr<const std::vector<CommRecord>>>* parts,
                 std::size_t part);

        reference operator*() const;
        pointer operator->() const;
        Iterator& operator++();
        Iterator operator++(int);
        bool operator==(const Iterator& other) const;
        bool operator!=(const Iterator& other) const;

      private:
        const std::vector<std::shared_ptr<const std::vector<CommRecord>>>* m_parts{nullptr};
        std::size_t m_part{0};  //!< the current part
        std::size_t m_index{0}; //!< the record in it
    };

    /** Appends a part (shared, not copied; an empty one is skipped). */
    void Append(std::shared_ptr<const std::vector<CommRecord>> part);
    /** \return the first record */
    Iterator begin() const;
    /** \return past the last record */
    Iterator end() const;
    /** \return the number of records */
    std::size_t size() const;
    /** \return true if there is none */
    bool empty() const;

  private:
    std::vector<std::shared_ptr<const std::vector<CommRecord>>> m_parts; //!< non-empty parts
    std::size_t m_size{0};                                               //!< records in all
};

} // namespace ns3

#endif // CHAKRA_COMM_RECORD_H
