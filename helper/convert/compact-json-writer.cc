#include "compact-json-writer.h"

namespace ns3
{

namespace
{

using Json = nlohmann::json;

/** \return compact JSON text (invalid UTF-8 replaced, never an exception) */
std::string
DumpCompact(const Json& value)
{
    return value.dump(-1, ' ', false, Json::error_handler_t::replace);
}

} // namespace

void
CompactJsonWriter::Begin(std::string* target)
{
    m_target = target;
    m_target->clear();
    m_depth = 0;
    m_needComma = false;
}

Json&
CompactJsonWriter::ObjectSlot()
{
    Separate();
    return m_object;
}

void
CompactJsonWriter::EndObject()
{
    m_target->append(DumpCompact(m_object));
    m_object = Json();
    m_needComma = true;
}

void
CompactJsonWriter::StartArray()
{
    Separate();
    m_target->push_back('[');
    ++m_depth;
    m_needComma = false;
}

bool
CompactJsonWriter::EndArray()
{
    m_target->push_back(']');
    m_needComma = true;
    return --m_depth == 0;
}

void
CompactJsonWriter::Literal(const char* text)
{
    Separate();
    m_target->append(text);
    m_needComma = true;
}

void
CompactJsonWriter::Integer(int64_t value)
{
    Separate();
    m_target->append(std::to_string(value));
    m_needComma = true;
}

void
CompactJsonWriter::Unsigned(uint64_t value)
{
    Separate();
    m_target->append(std::to_string(value));
    m_needComma = true;
}

void
CompactJsonWriter::Float(double value)
{
    Separate();
    m_target->append(Json(value).dump()); // nlohmann's shortest round-trip form
    m_needComma = true;
}

void
CompactJsonWriter::String(const std::string& value, bool escaped)
{
    Separate();
    if (escaped)
    {
        m_target->append(DumpCompact(Json(value)));
    }
    else
    {
        // Unescaped JSON string text holds no quote, backslash or control character, and the
        // reader checked its UTF-8: dump would write it back byte for byte.
        m_target->push_back('"');
        m_target->append(value);
        m_target->push_back('"');
    }
    m_needComma = true;
}

void
CompactJsonWriter::Separate()
{
    if (m_needComma)
    {
        m_target->push_back(',');
    }
}

} // namespace ns3
