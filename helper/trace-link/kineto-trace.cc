#include "kineto-trace.h"

#include "ns3/json-limits.h"
#include "ns3/trace-error.h"
#include "ns3/trace-file.h"

#include <algorithm>
#include <cmath>
#include <istream>

namespace ns3
{

namespace
{

/** What an event is to the linker. */
enum class EventClass
{
    IGNORED,
    CPU_OP,
    RUNTIME,
    KERNEL,
    MEMCPY,
    MEMSET
};

std::string
Lower(const std::string& text)
{
    std::string out = text;
    for (char& c : out)
    {
        if (c >= 'A' && c <= 'Z')
        {
            c = static_cast<char>(c - 'A' + 'a');
        }
    }
    return out;
}

bool
EndsWith(const std::string& text, const std::string& suffix)
{
    return text.size() >= suffix.size() &&
           text.compare(text.size() - suffix.size(), suffix.size(), suffix) == 0;
}

/**
 * Classifies a Kineto category. Older Kineto versions used "Operator", "Runtime", "Kernel",
 * "Memcpy", "Memset"; ROCm builds may use "hip_runtime"-like names: any "*_runtime" or
 * "*_driver" category is a runtime call, so launchers are found by category and correlation,
 * never by a fixed list of names.
 */
EventClass
Classify(const std::string& category)
{
    const std::string cat = Lower(category);
    if (cat == "cpu_op" || cat == "user_annotation" || cat == "operator")
    {
        return EventClass::CPU_OP;
    }
    if (cat == "runtime" || cat == "driver" || EndsWith(cat, "_runtime") ||
        EndsWith(cat, "_driver"))
    {
        return EventClass::RUNTIME;
    }
    if (cat == "kernel")
    {
        return EventClass::KERNEL;
    }
    if (cat == "gpu_memcpy" || cat == "memcpy")
    {
        return EventClass::MEMCPY;
    }
    if (cat == "gpu_memset" || cat == "memset")
    {
        return EventClass::MEMSET;
    }
    return EventClass::IGNORED;
}

/**
 * \param event a complete ("X") event
 * \param legacy whether the trace is the legacy list of the autograd profiler
 * \param sawCategory set when the event has a "cat"
 * \return what the event is to the linker
 */
EventClass
ClassifyEvent(const nlohmann::json& event, bool legacy, bool& sawCategory)
{
    auto cat = event.find("cat");
    if (legacy && (cat == event.end() || !cat->is_string()))
    {
        // The legacy list has no categories: every complete event is a host operator, except
        // device rows written by use_cuda=True, which carry no correlation and are skipped.
        auto pid = event.find("pid");
        bool deviceRow = pid != event.end() && pid->is_string() &&
                         pid->get_ref<const std::string&>().find("CUDA") != std::string::npos;
        return deviceRow ? EventClass::IGNORED : EventClass::CPU_OP;
    }
    sawCategory = sawCategory || cat != event.end();
    // A list whose events carry categories is a Kineto trace in Chrome's array format.
    return cat != event.end() && cat->is_string() ? Classify(cat->get<std::string>())
                                                  : EventClass::IGNORED;
}

} // namespace

/**
 * \ingroup chakra-linker
 * \brief Reads one event's fields, with errors that name the event.
 */
class KinetoEventReader
{
  public:
    KinetoEventReader(const std::string& path, const nlohmann::json& event, uint64_t index)
        : m_path(path),
          m_event(event),
          m_index(index)
    {
        auto args = event.find("args");
        if (args != event.end() && args->is_object())
        {
            m_args = &*args;
        }
    }

    [[noreturn]] void Fail(const std::string& what) const
    {
        std::string where = "event #" + std::to_string(m_index);
        auto name = m_event.find("name");
        if (name != m_event.end() && name->is_string())
        {
            std::string text = name->get<std::string>();
            if (text.size() > 80)
            {
                text = text.substr(0, 77) + "...";
            }
            where += " (" + text + ")";
        }
        throw TraceError(m_path, where, what);
    }

    std::string String(const char* key) const
    {
        auto it = m_event.find(key);
        if (it == m_event.end() || !it->is_string())
        {
            Fail(std::string("\"") + key + "\" is missing or not a string");
        }
        return it->get<std::string>();
    }

    /** A time in microseconds (integer or fractional) as nanoseconds. */
    TimeNs Micros(const char* key) const
    {
        auto it = m_event.find(key);
        if (it == m_event.end() || !it->is_number())
        {
            Fail(std::string("\"") + key + "\" is missing or not a number");
        }
        if (it->is_number_integer())
        {
            int64_t micros = it->get<int64_t>();
            if (micros > INT64_MAX / 1000 || micros < INT64_MIN / 1000)
            {
                Fail(std::string("\"") + key + "\" is out of range");
            }
            return micros * 1000;
        }
        double micros = it->get<double>();
        if (!std::isfinite(micros) || std::fabs(micros) > 9.0e15)
        {
            Fail(std::string("\"") + key + "\" is out of range");
        }
        return static_cast<TimeNs>(std::llround(micros * 1000.0));
    }

    const nlohmann::json& Tid() const
    {
        auto it = m_event.find("tid");
        if (it == m_event.end() || !(it->is_number_integer() || it->is_string()))
        {
            Fail("\"tid\" is missing or not an integer or string");
        }
        return *it;
    }

    /** An integer argument, or kKinetoNone when absent. */
    int64_t Arg(const char* key) const
    {
        if (m_args == nullptr)
        {
            return kKinetoNone;
        }
        auto it = m_args->find(key);
        if (it == m_args->end() || it->is_null())
        {
            return kKinetoNone;
        }
        if (it->is_number_integer())
        {
            return it->get<int64_t>();
        }
        if (it->is_number_float())
        {
            double value = it->get<double>();
            if (std::isfinite(value) && value == std::floor(value) && std::fabs(value) < 9.0e15)
            {
                return static_cast<int64_t>(value);
            }
        }
        Fail(std::string("args.\"") + key + "\" is not an integer");
    }

    std::string StringArg(const char* key) const
    {
        if (m_args == nullptr)
        {
            return "";
        }
        auto it = m_args->find(key);
        return it != m_args->end() && it->is_string() ? it->get<std::string>() : "";
    }

  private:
    const std::string& m_path;
    const nlohmann::json& m_event;
    uint64_t m_index;
    const nlohmann::json* m_args{nullptr};
};

const char*
GpuOpKindName(GpuOpKind kind)
{
    switch (kind)
    {
    case GpuOpKind::KERNEL:
        return "kernel";
    case GpuOpKind::MEMCPY:
        return "gpu_memcpy";
    case GpuOpKind::MEMSET:
        return "gpu_memset";
    }
    return "kernel";
}

KinetoTrace::KinetoTrace(const std::string& path)
    : m_path(path)
{
    ParseState state;
    const nlohmann::json skeleton = ParseEvents(state);
    if (!state.sawEvents)
    {
        throw TraceError(m_path,
                         "top level",
                         "no \"traceEvents\" list: not a Kineto or autograd-profiler trace");
    }
    if (state.topKind == TopLevel::OBJECT)
    {
        KeepRunInfo(skeleton);
    }
    if (m_cpuOps.empty())
    {
        throw TraceError(m_path,
                         "",
                         state.eventIndex == 0 ? "the trace has no events"
                                               : "the trace has no host operator (no cpu_op or "
                                                 "user_annotation event)");
    }
    BuildNesting();
    std::sort(m_hostPids.begin(), m_hostPids.end());
    m_hostPids.erase(std::unique(m_hostPids.begin(), m_hostPids.end()), m_hostPids.end());
}

nlohmann::json
KinetoTrace::ParseEvents(ParseState& state)
{
    InputFileStreamBuf buffer(m_path);
    std::istream stream(&buffer);
    // Events are turned into records as the parser completes each one and then discarded, so
    // the document tree never holds more than one event.
    auto callback =
        [&](int depth, nlohmann::json::parse_event_t event, nlohmann::json& parsed) -> bool {
        return OnParseEvent(state, depth, event, parsed);
    };
    try
    {
        return nlohmann::json::parse(stream, callback);
    }
    catch (const nlohmann::json::parse_error& e)
    {
        if (buffer.GetFile().GetOffset() == 0)
        {
            throw TraceError(m_path, "", "the file is empty");
        }
        ThrowJsonError(e, m_path, 0); // at the error's byte
    }
    catch (const nlohmann::json::exception& e)
    {
        ThrowJsonError(e, m_path, buffer.GetConsumed()); // a number too large (1e9999)
    }
}

bool
KinetoTrace::OnParseEvent(ParseState& state,
                          int depth,
                          nlohmann::json::parse_event_t event,
                          nlohmann::json& parsed)
{
    using Event = nlohmann::json::parse_event_t;
    if (depth == 0 && state.topKind == TopLevel::UNKNOWN)
    {
        if (event == Event::object_start)
        {
            state.topKind = TopLevel::OBJECT;
        }
        else if (event == Event::array_start)
        {
            state.topKind = TopLevel::LIST;
            m_legacy = true;
            state.sawEvents = true;
        }
        else if (event == Event::value)
        {
            throw TraceError(m_path,
                             "top level",
                             "not a Kineto trace: expected a JSON object or list");
        }
    }
    const bool object = state.topKind == TopLevel::OBJECT;
    if (object && depth == 1 && event == Event::key)
    {
        state.topKey = parsed.get<std::string>();
        if (state.topKey == "traceEvents")
        {
            state.sawEvents = true;
        }
    }
    const int eventDepth = object ? 2 : 1;
    const bool inEvents =
        state.topKind == TopLevel::LIST || (object && state.topKey == "traceEvents");
    if (inEvents && depth == eventDepth - 1 && event == Event::value && object &&
        !parsed.is_array())
    {
        throw TraceError(m_path, "top level", "\"traceEvents\" is not a list");
    }
    if (inEvents && depth == eventDepth &&
        (event == Event::object_end || event == Event::value || event == Event::array_end))
    {
        if (!parsed.is_object())
        {
            throw TraceError(m_path,
                             "event #" + std::to_string(state.eventIndex),
                             "not a JSON object");
        }
        AddEvent(parsed, state.eventIndex++);
        return false;
    }
    return true;
}

void
KinetoTrace::KeepRunInfo(const nlohmann::json& skeleton)
{
    auto info = skeleton.find("distributedInfo");
    if (info != skeleton.end() && info->is_object())
    {
        m_distributedInfo = *info;
    }
    auto properties = skeleton.find("deviceProperties");
    if (properties != skeleton.end() && properties->is_array())
    {
        m_deviceProperties = *properties;
    }
}

void
KinetoTrace::AddEvent(const nlohmann::json& event, uint64_t index)
{
    KinetoEventReader reader(m_path, event, index);
    auto ph = event.find("ph");
    if (ph == event.end() || !ph->is_string())
    {
        reader.Fail("\"ph\" is missing or not a string");
    }
    if (ph->get_ref<const std::string&>() != "X")
    {
        return;
    }
    const EventClass cls = ClassifyEvent(event, m_legacy, m_sawCategory);
    if (cls == EventClass::IGNORED)
    {
        return;
    }
    const std::string name = reader.String("name");
    const TimeNs ts = reader.Micros("ts");
    const TimeNs dur = reader.Micros("dur");
    if (dur < 0)
    {
        reader.Fail("negative \"dur\"");
    }
    if (cls == EventClass::CPU_OP || cls == EventClass::RUNTIME)
    {
        NoteHostPid(event);
    }
    if (cls == EventClass::CPU_OP)
    {
        AddCpuOp(reader, name, ts, dur, index);
    }
    else if (cls == EventClass::RUNTIME)
    {
        AddRuntimeCall(reader, name, ts, dur);
    }
    else
    {
        const GpuOpKind kind = cls == EventClass::KERNEL   ? GpuOpKind::KERNEL
                               : cls == EventClass::MEMCPY ? GpuOpKind::MEMCPY
                                                           : GpuOpKind::MEMSET;
        AddGpuOp(reader, kind, name, ts, dur, index);
    }
}

void
KinetoTrace::NoteHostPid(const nlohmann::json& event)
{
    auto pid = event.find("pid");
    if (pid != event.end() && pid->is_number_integer())
    {
        int64_t value = pid->get<int64_t>();
        if (m_hostPids.empty() || m_hostPids.back() != value)
        {
            m_hostPids.push_back(value);
        }
    }
}

void
KinetoTrace::AddCpuOp(const KinetoEventReader& reader,
                      const std::string& name,
                      TimeNs ts,
                      TimeNs dur,
                      uint64_t index)
{
    KinetoCpuOp op;
    op.name = InternName(name);
    op.thread = InternThread(reader.Tid());
    op.ts = ts;
    op.dur = dur;
    op.externalId = reader.Arg("External id");
    op.rfId = reader.Arg("Record function id");
    op.seqNr = reader.Arg("Sequence number");
    // Equal start times are ordered by the profiler's own counters, which follow the
    // order ops started in (a parent before its children).
    int64_t evIdx = reader.Arg("Ev Idx");
    if (op.externalId != kKinetoNone)
    {
        op.order = op.externalId;
    }
    else if (evIdx != kKinetoNone)
    {
        op.order = evIdx;
    }
    else
    {
        op.order = static_cast<int64_t>(index);
        if (!m_legacy)
        {
            m_orderFromIds = false; // the legacy list is written in start order
        }
    }
    if (op.rfId != kKinetoNone)
    {
        m_hasRfIds = true;
    }
    m_cpuOps.push_back(op);
}

void
KinetoTrace::AddRuntimeCall(const KinetoEventReader& reader,
                            const std::string& name,
                            TimeNs ts,
                            TimeNs dur)
{
    KinetoRuntimeCall call;
    call.correlation = reader.Arg("correlation");
    if (call.correlation == kKinetoNone)
    {
        return;
    }
    call.name = InternName(name);
    call.thread = InternThread(reader.Tid());
    call.ts = ts;
    call.dur = dur;
    call.externalId = reader.Arg("External id");
    call.stream = reader.Arg("stream");
    m_byCorrelation.emplace(call.correlation, static_cast<int64_t>(m_runtimeCalls.size()));
    m_runtimeCalls.push_back(call);
}

void
KinetoTrace::AddGpuOp(const KinetoEventReader& reader,
                      GpuOpKind kind,
                      const std::string& name,
                      TimeNs ts,
                      TimeNs dur,
                      uint64_t index)
{
    KinetoGpuOp op;
    op.name = InternName(name);
    op.kind = kind;
    op.ts = ts;
    op.dur = dur;
    op.correlation = reader.Arg("correlation");
    op.stream = reader.Arg("stream");
    op.device = reader.Arg("device");
    op.processGroup = reader.StringArg("Process Group Name");
    op.fileIndex = index;
    m_gpuOps.push_back(std::move(op));
}

void
KinetoTrace::BuildNesting()
{
    // Without start-order counters, an op that starts with another is taken to enclose it
    // when it is longer.
    const bool byCounter = m_orderFromIds;
    std::sort(m_cpuOps.begin(),
              m_cpuOps.end(),
              [byCounter](const KinetoCpuOp& a, const KinetoCpuOp& b) {
                  if (a.thread != b.thread)
                  {
                      return a.thread < b.thread;
                  }
                  if (a.ts != b.ts)
                  {
                      return a.ts < b.ts;
                  }
                  if (!byCounter && a.dur != b.dur)
                  {
                      return a.dur > b.dur;
                  }
                  if (a.order != b.order)
                  {
                      return a.order < b.order;
                  }
                  return a.dur > b.dur;
              });
    m_threadRanges.assign(m_threadLabels.size(), {0, 0});
    std::vector<uint32_t> stack;
    uint32_t first = 0;
    for (uint32_t i = 0; i <= m_cpuOps.size(); ++i)
    {
        if (i == m_cpuOps.size() || m_cpuOps[i].thread != m_cpuOps[first].thread)
        {
            m_threadRanges[m_cpuOps[first].thread] = {first, i};
            first = i;
            stack.clear();
            if (i == m_cpuOps.size())
            {
                break;
            }
        }
        KinetoCpuOp& op = m_cpuOps[i];
        // An op is inside the open op on top of the stack if it starts before that op ends (or
        // is an empty op at its very end).
        while (!stack.empty())
        {
            const KinetoCpuOp& top = m_cpuOps[stack.back()];
            if (op.ts < top.End() || (op.ts == top.End() && op.End() == top.End()))
            {
                break;
            }
            stack.pop_back();
        }
        op.parent = stack.empty() ? -1 : static_cast<int32_t>(stack.back());
        stack.push_back(i);
    }
}

uint32_t
KinetoTrace::InternName(const std::string& name)
{
    auto [it, added] = m_nameIndex.emplace(name, static_cast<uint32_t>(m_names.size()));
    if (added)
    {
        m_names.push_back(name);
    }
    return it->second;
}

uint32_t
KinetoTrace::InternThread(const nlohmann::json& tid)
{
    std::string key = tid.dump();
    auto [it, added] = m_threadIndex.emplace(key, static_cast<uint32_t>(m_threadLabels.size()));
    if (added)
    {
        m_threadLabels.push_back(tid.is_string() ? tid.get<std::string>() : key);
    }
    return it->second;
}

const std::string&
KinetoTrace::GetPath() const
{
    return m_path;
}

bool
KinetoTrace::IsLegacy() const
{
    return m_legacy && !m_sawCategory;
}

bool
KinetoTrace::HasRecordFunctionIds() const
{
    return m_hasRfIds;
}

const std::vector<KinetoCpuOp>&
KinetoTrace::GetCpuOps() const
{
    return m_cpuOps;
}

const std::vector<KinetoRuntimeCall>&
KinetoTrace::GetRuntimeCalls() const
{
    return m_runtimeCalls;
}

const std::vector<KinetoGpuOp>&
KinetoTrace::GetGpuOps() const
{
    return m_gpuOps;
}

int64_t
KinetoTrace::FindRuntimeCall(int64_t correlation) const
{
    auto it = m_byCorrelation.find(correlation);
    return it == m_byCorrelation.end() ? -1 : it->second;
}

uint32_t
KinetoTrace::GetThreadCount() const
{
    return static_cast<uint32_t>(m_threadLabels.size());
}

std::pair<uint32_t, uint32_t>
KinetoTrace::GetThreadRange(uint32_t thread) const
{
    return thread < m_threadRanges.size() ? m_threadRanges[thread]
                                          : std::pair<uint32_t, uint32_t>{0, 0};
}

const std::string&
KinetoTrace::GetThreadLabel(uint32_t thread) const
{
    return m_threadLabels.at(thread);
}

int32_t
KinetoTrace::FindInnermost(uint32_t thread, TimeNs t) const
{
    auto [first, last] = GetThreadRange(thread);
    auto begin = m_cpuOps.begin() + first;
    auto end = m_cpuOps.begin() + last;
    auto it = std::upper_bound(begin, end, t, [](TimeNs value, const KinetoCpuOp& op) {
        return value < op.ts;
    });
    if (it == begin)
    {
        return -1;
    }
    int32_t candidate = static_cast<int32_t>(it - m_cpuOps.begin()) - 1;
    // The innermost op containing t is the last op starting at or before t, or one of its
    // ancestors (ops of a thread nest).
    while (candidate >= 0 && m_cpuOps[candidate].End() < t)
    {
        candidate = m_cpuOps[candidate].parent;
    }
    return candidate;
}

const std::string&
KinetoTrace::GetName(uint32_t name) const
{
    return m_names.at(name);
}

uint32_t
KinetoTrace::FindName(const std::string& name) const
{
    auto it = m_nameIndex.find(name);
    return it == m_nameIndex.end() ? kNoName : it->second;
}

const std::vector<int64_t>&
KinetoTrace::GetHostPids() const
{
    return m_hostPids;
}

const nlohmann::json&
KinetoTrace::GetDistributedInfo() const
{
    return m_distributedInfo;
}

const nlohmann::json&
KinetoTrace::GetDeviceProperties() const
{
    return m_deviceProperties;
}

} // namespace ns3
