/*
 * InternedString: a string kept once per process and passed around as one pointer.
 */
#ifndef CHAKRA_INTERNED_STRING_H
#define CHAKRA_INTERNED_STRING_H

#include <ostream>
#include <string>

namespace ns3
{

/**
 * \ingroup chakra-application
 * \brief A string held once per process in a pool, copied as one pointer.
 *
 * Every rank's communication records name the same few node names, process groups,
 * algorithms and kinds (a 16,384-GPU LLM step has about a thousand records per rank and a few
 * thousand distinct names in all), so a record keeps pointers into one pool instead of four
 * strings of its own. Interned strings are never freed. It reads as a const std::string&
 * (str(), or the implicit conversion), and compares and orders by its text.
 */
class InternedString
{
  public:
    /** The empty string. */
    InternedString();
    /** \param text the text (interned: looked up, added if new) */
    InternedString(const std::string& text);
    /** \param text the text (interned) */
    InternedString(const char* text);

    /** \return the text */
    const std::string& str() const
    {
        return *m_text;
    }

    /** \return the text */
    operator const std::string&() const
    {
        return *m_text;
    }

    /** \return true if the text is empty */
    bool empty() const
    {
        return m_text->empty();
    }

    /** \return the number of distinct strings interned so far in this process */
    static std::size_t PoolSize();

  private:
    const std::string* m_text; //!< the pool's copy
};

/** \return true if the texts are equal (one pointer comparison) */
inline bool
operator==(const InternedString& a, const InternedString& b)
{
    return &a.str() == &b.str();
}

/** \return true if the texts differ */
inline bool
operator!=(const InternedString& a, const InternedString& b)
{
    return !(a == b);
}

/** \return true if \p a's text equals \p b */
inline bool
operator==(const InternedString& a, const std::string& b)
{
    return a.str() == b;
}

/** \return true if \p a's text differs from \p b */
inline bool
operator!=(const InternedString& a, const std::string& b)
{
    return a.str() != b;
}

/** \return true if \p a's text equals \p b */
inline bool
operator==(const InternedString& a, const char* b)
{
    return a.str() == b;
}

/** \return true if \p a's text differs from \p b */
inline bool
operator!=(const InternedString& a, const char* b)
{
    return a.str() != b;
}

/** \return true if \p a's text sorts before \p b's (text order, not pool order) */
inline bool
operator<(const InternedString& a, const InternedString& b)
{
    return a != b && a.str() < b.str();
}

/** \return the concatenation */
inline std::string
operator+(const InternedString& a, const std::string& b)
{
    return a.str() + b;
}

/** \return the concatenation */
inline std::string
operator+(const std::string& a, const InternedString& b)
{
    return a + b.str();
}

/** \return the concatenation */
inline std::string
operator+(const InternedString& a, const char* b)
{
    return a.str() + b;
}

/** \return the concatenation */
inline std::string
operator+(const char* a, const InternedString& b)
{
    return a + b.str();
}

/** Prints the text. */
inline std::ostream&
operator<<(std::ostream& os, const InternedString& s)
{
    return os << s.str();
}

} // namespace ns3

#endif // CHAKRA_INTERNED_STRING_H
