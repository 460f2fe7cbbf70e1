#include "pytorch-trace-sax.h"

#include <array>
#include <string_view>

namespace ns3
{

namespace
{

/** The fields of an "attrs" entry (PyTorchTraceSax::kAttrName, ...). */
constexpr std::array<std::string_view, 3> kAttrFields{"name", "type", "value"};

/**
 * \return the index of \p key in \p names, or -1 (string_view comparisons: the lengths first,
 *         no strlen; this runs for every key of every node)
 */
template <std::size_t N>
int
IndexOf(const std::array<std::string_view, N>& names, std::string_view key)
{
    for (std::size_t i = 0; i < N; ++i)
    {
        if (key == names[i])
        {
            return static_cast<int>(i);
        }
    }
    return -1;
}

} // namespace

bool
PyTorchTraceSax::InCompactText() const
{
    return !m_frames.empty() && m_frames.back() == Frame::Compact && m_stack.empty();
}

bool
PyTorchTraceSax::Null()
{
    if (!InCompactText())
    {
        return Value(Json());
    }
    m_compact.Literal("null");
    return true;
}

bool
PyTorchTraceSax::Boolean(bool value)
{
    if (!InCompactText())
    {
        return Value(Json(value));
    }
    m_compact.Literal(value ? "true" : "false");
    return true;
}

bool
PyTorchTraceSax::Integer(int64_t value)
{
    if (!InCompactText())
    {
        return Value(Json(value));
    }
    m_compact.Integer(value);
    return true;
}

bool
PyTorchTraceSax::Unsigned(uint64_t value)
{
    if (!InCompactText())
    {
        return Value(Json(value));
    }
    m_compact.Unsigned(value);
    return true;
}

bool
PyTorchTraceSax::Float(double value)
{
    if (!InCompactText())
    {
        return Value(Json(value));
    }
    m_compact.Float(value);
    return true;
}

bool
PyTorchTraceSax::String(std::string& value, bool escaped)
{
    if (m_frames.empty() || !m_stack.empty())
    {
        return Value(Json(std::move(value)));
    }
    if (m_frames.back() == Frame::Compact)
    {
        m_compact.String(value, escaped);
        return true;
    }
    if (m_frames.back() == Frame::Attr && (m_attrField == kAttrName || m_attrField == kAttrType))
    {
        SetAttrText(value); // without a JSON value in between: two per attribute
        return true;
    }
    return Value(Json(std::move(value)));
}

bool
PyTorchTraceSax::Key(std::string& name)
{
    if (!m_stack.empty())
    {
        m_slot = &(*m_stack.back())[name];
        return true;
    }
    if (!m_frames.empty())
    {
        if (m_frames.back() == Frame::Node)
        {
            m_io = IndexOf(kPyTorchIoKeys, name);
        }
        else if (m_frames.back() == Frame::Io)
        {
            m_member = IndexOf(kPyTorchIoMembers, name);
        }
        else if (m_frames.back() == Frame::Attr)
        {
            m_attrField = IndexOf(kAttrFields, name);
        }
    }
    m_key = std::move(name);
    return true;
}

bool
PyTorchTraceSax::StartObject()
{
    return Start(Json::value_t::object);
}

bool
PyTorchTraceSax::StartArray()
{
    return Start(Json::value_t::array);
}

bool
PyTorchTraceSax::EndObject()
{
    return End();
}

bool
PyTorchTraceSax::EndArray()
{
    return End();
}

void
PyTorchTraceSax::Capture(Json* target, Json::value_t type)
{
    *target = Json(type);
    m_stack.push_back(target);
}

PyTorchRawIo&
PyTorchTraceSax::CurrentIo()
{
    return nodes.back().io[static_cast<std::size_t>(m_io)];
}

bool
PyTorchTraceSax::Value(Json value)
{
    if (!m_stack.empty())
    {
        Json* open = m_stack.back();
        if (open->is_array())
        {
            open->push_back(std::move(value));
        }
        else
        {
            *m_slot = std::move(value);
        }
        return true;
    }
    if (m_frames.empty())
    {
        return true; // a scalar document: not an object, reported later
    }
    switch (m_frames.back())
    {
    case Frame::Top:
        top[m_key] = std::move(value);
        break;
    case Frame::Nodes:
        nodes.emplace_back();
        nodes.back().index = m_nodeCount++;
        nodes.back().fields = std::move(value);
        break;
    case Frame::Node:
        if (m_io >= 0)
        {
            // A repeated key replaces the earlier value, as in a JSON object.
            CurrentIo() = PyTorchRawIo();
            CurrentIo().kind = value.is_null() ? PyTorchRawIo::ABSENT : PyTorchRawIo::OTHER;
        }
        else
        {
            nodes.back().fields[m_key] = std::move(value);
        }
        break;
    case Frame::Io:
        if (m_member >= 0)
        {
            const auto member = static_cast<std::size_t>(m_member);
            CurrentIo().notArray[member] = !value.is_null();
            MemberOf(CurrentIo().io, member) = "[]";
        }
        break;
    case Frame::Attrs:
        SetAttrError("an entry of \"attrs\" is not a {name, type, value} object: " + value.dump());
        break;
    case Frame::Attr:
        AttrValue(value);
        break;
    case Frame::Compact:
        break; // (scalars in compact text are written by the callers)
    }
    return true;
}

void
PyTorchTraceSax::AttrValue(Json& value)
{
    if (m_attrField == kAttrName || m_attrField == kAttrType)
    {
        if (!value.is_string())
        {
            SetAttrError("an entry of \"attrs\" has a \"" + m_key +
                         "\" that is not a string: " + value.dump());
        }
        else
        {
            SetAttrText(value.get_ref<std::string&>());
        }
    }
    else if (m_attrField == kAttrValue)
    {
        m_attr.value = std::move(value);
    }
}

void
PyTorchTraceSax::SetAttrText(std::string& text)
{
    (m_attrField == kAttrName ? m_attr.name : m_attr.type) = std::move(text);
    (m_attrField == kAttrName ? m_attrHasName : m_attrHasType) = true;
}

std::string&
PyTorchTraceSax::MemberOf(PyTorchIo& io, std::size_t member)
{
    return member == 0 ? io.values : (member == 1 ? io.shapes : io.types);
}

bool
PyTorchTraceSax::Start(Json::value_t type)
{
    if (!m_stack.empty())
    {
        StartInCapture(type);
        return true;
    }
    if (m_frames.empty())
    {
        StartDocument(type);
        return true;
    }
    const bool isObject = type == Json::value_t::object;
    switch (m_frames.back())
    {
    case Frame::Top:
        if (m_key == "nodes" && !isObject)
        {
            nodesSeen = true;
            m_frames.push_back(Frame::Nodes);
        }
        else
        {
            Capture(&top[m_key], type);
        }
        break;
    case Frame::Nodes:
        StartNode(type);
        break;
    case Frame::Node:
        StartInNode(type);
        break;
    case Frame::Io:
        StartInIo(type);
        break;
    case Frame::Attrs:
        StartInAttrs(type);
        break;
    case Frame::Attr:
        Capture(m_attrField == kAttrValue ? &m_attr.value : &m_ignored, type);
        break;
    case Frame::Compact:
        if (isObject)
        {
            Capture(&m_compact.ObjectSlot(), type);
        }
        else
        {
            m_compact.StartArray();
        }
        break;
    }
    return true;
}

void
PyTorchTraceSax::StartInCapture(Json::value_t type)
{
    Json* open = m_stack.back();
    if (open->is_array())
    {
        open->push_back(Json(type));
        m_stack.push_back(&open->back());
    }
    else
    {
        *m_slot = Json(type);
        m_stack.push_back(m_slot);
    }
}

void
PyTorchTraceSax::StartDocument(Json::value_t type)
{
    if (type == Json::value_t::object)
    {
        topIsObject = true;
        m_frames.push_back(Frame::Top);
    }
    else
    {
        Capture(&m_ignored, type);
    }
}

void
PyTorchTraceSax::StartNode(Json::value_t type)
{
    nodes.emplace_back();
    nodes.back().index = m_nodeCount++;
    if (type == Json::value_t::object)
    {
        nodes.back().fields = Json::object();
        m_frames.push_back(Frame::Node);
    }
    else
    {
        Capture(&nodes.back().fields, type);
    }
}

void
PyTorchTraceSax::StartInNode(Json::value_t type)
{
    const bool isObject = type == Json::value_t::object;
    if (m_key == "attrs" && !isObject)
    {
        nodes.back().hasAttrs = true;
        m_frames.push_back(Frame::Attrs);
    }
    else if (m_io >= 0)
    {
        PyTorchRawIo& io = CurrentIo();
        io = PyTorchRawIo();
        if (isObject)
        {
            io.kind = PyTorchRawIo::OBJECT;
            m_frames.push_back(Frame::Io);
        }
        else
        {
            io.kind = PyTorchRawIo::ARRAY;
            m_compact.Begin(&io.text);
            m_compact.StartArray();
            m_frames.push_back(Frame::Compact);
        }
    }
    else
    {
        Capture(&nodes.back().fields[m_key], type);
    }
}

void
PyTorchTraceSax::StartInIo(Json::value_t type)
{
    if (m_member >= 0 && type != Json::value_t::object)
    {
        const auto member = static_cast<std::size_t>(m_member);
        CurrentIo().notArray[member] = false;
        m_compact.Begin(&MemberOf(CurrentIo().io, member));
        m_compact.StartArray();
        m_frames.push_back(Frame::Compact);
        return;
    }
    if (m_member >= 0)
    {
        CurrentIo().notArray[static_cast<std::size_t>(m_member)] = true;
    }
    Capture(&m_ignored, type);
}

void
PyTorchTraceSax::StartInAttrs(Json::value_t type)
{
    if (type == Json::value_t::object)
    {
        m_attr = PyTorchAttr();
        m_attrHasName = false;
        m_attrHasType = false;
        m_frames.push_back(Frame::Attr);
    }
    else
    {
        SetAttrError("an entry of \"attrs\" is a list, not a {name, type, value} object");
        Capture(&m_ignored, type);
    }
}

bool
PyTorchTraceSax::End()
{
    if (!m_stack.empty())
    {
        m_stack.pop_back();
        if (m_stack.empty() && !m_frames.empty() && m_frames.back() == Frame::Compact)
        {
            m_compact.EndObject(); // an object inside an io array
        }
        return true;
    }
    if (m_frames.empty())
    {
        return true;
    }
    if (m_frames.back() == Frame::Compact)
    {
        if (m_compact.EndArray())
        {
            m_frames.pop_back();
        }
        return true;
    }
    Frame frame = m_frames.back();
    m_frames.pop_back();
    if (frame == Frame::Node && sink && sink(nodes.back()))
    {
        nodes.pop_back();
    }
    if (frame == Frame::Attr)
    {
        EndAttr();
    }
    return true;
}

void
PyTorchTraceSax::EndAttr()
{
    if (!m_attrHasName)
    {
        SetAttrError("an entry of \"attrs\" has no \"name\"");
        return;
    }
    if (!m_attrHasType)
    {
        m_attr.type = "";
    }
    nodes.back().attrs.push_back(std::move(m_attr));
}

void
PyTorchTraceSax::SetAttrError(const std::string& what)
{
    if (nodes.back().attrError.empty())
    {
        nodes.back().attrError = what;
    }
}

} // namespace ns3
