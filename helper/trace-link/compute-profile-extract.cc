#include "compute-profile-extract.h"

#include "ns3/json-limits.h"
#include "ns3/trace-error.h"
#include "ns3/trace-file.h"

#include <algorithm>
#include <istream>
#include <unordered_map>

namespace ns3
{

namespace
{

/** A tensor's dimensions; empty for an input that is no tensor (a scalar, a list). */
using Dims = std::vector<int64_t>;

/** \return the product of \p dims from \p first to \p last (exclusive) */
int64_t
Product(const Dims& dims, std::size_t first, std::size_t last)
{
    int64_t out = 1;
    for (std::size_t i = first; i < last; ++i)
    {
        out *= dims[i];
    }
    return out;
}

/** \return "AxBxC..." of \p values */
std::string
ShapeText(const std::vector<int64_t>& values)
{
    std::string out;
    for (int64_t v : values)
    {
        out += (out.empty() ? "" : "x") + std::to_string(v);
    }
    return out;
}

/** \return ("gemm", MxNxK), or nullopt unless every size is positive */
std::optional<ProfileKey>
Gemm(int64_t m, int64_t n, int64_t k)
{
    if (m <= 0 || n <= 0 || k <= 0)
    {
        return std::nullopt;
    }
    return ProfileKey("gemm", ShapeText({m, n, k}));
}

/** \return \p dims if it is one, else an empty list (a nested list, a scalar's shape) */
Dims
ReadDims(const HostJson& shape)
{
    Dims dims;
    if (!shape.is_array())
    {
        return dims;
    }
    for (const auto& d : shape)
    {
        if (!d.is_number_integer())
        {
            return Dims();
        }
        dims.push_back(d.get<int64_t>());
    }
    return dims;
}

/** \return the input shapes of a host node: "input_shapes" (schema 1.0.1) or inputs.shapes */
std::vector<Dims>
InputShapes(const HostJson& node)
{
    const HostJson* shapes = HostTrace::FindField(node, "input_shapes");
    if (shapes == nullptr)
    {
        const HostJson* inputs = HostTrace::FindField(node, "inputs");
        if (inputs != nullptr && inputs->is_object() && inputs->contains("shapes"))
        {
            shapes = &(*inputs)["shapes"];
        }
    }
    std::vector<Dims> out;
    if (shapes != nullptr && shapes->is_array())
    {
        for (const auto& shape : *shapes)
        {
            out.push_back(ReadDims(shape));
        }
    }
    return out;
}

/** \return the call-tree parent's id ("parent", or "ctrl_deps" of the -chakra schemas) */
std::optional<uint64_t>
ParentId(const HostJson& node)
{
    for (const char* key : {"parent", "ctrl_deps"})
    {
        const auto it = node.find(key);
        if (it != node.end() && it->is_number_unsigned())
        {
            return it->get<uint64_t>();
        }
    }
    return std::nullopt;
}

/** \return the node's "name", or "" */
std::string
NodeName(const HostJson& node)
{
    const auto it = node.find("name");
    return it != node.end() && it->is_string() ? it->get<std::string>() : std::string();
}

/** \return true for a GPU op of the linked trace (it has "cat") */
bool
IsGpuOp(const HostJson& node)
{
    return node.contains("cat");
}

/** \return true for a kernel node ("cat": "kernel"; not a memcpy or memset) */
bool
IsKernel(const HostJson& node)
{
    const auto it = node.find("cat");
    return it != node.end() && it->is_string() && *it == "kernel";
}

/** \return the children of every node, by index, and the indices of the roots */
std::vector<std::vector<std::size_t>>
Children(const HostJson& nodes, std::vector<std::size_t>& roots)
{
    std::unordered_map<uint64_t, std::size_t> byId;
    for (std::size_t i = 0; i < nodes.size(); ++i)
    {
        const auto it = nodes[i].find("id");
        if (it != nodes[i].end() && it->is_number_unsigned())
        {
            byId.emplace(it->get<uint64_t>(), i);
        }
    }
    std::vector<std::vector<std::size_t>> children(nodes.size());
    for (std::size_t i = 0; i < nodes.size(); ++i)
    {
        const auto parent = ParentId(nodes[i]);
        const auto found = parent ? byId.find(*parent) : byId.end();
        // The profiler's process node names itself as its parent: a root.
        if (found == byId.end() || found->second == i)
        {
            roots.push_back(i);
        }
        else
        {
            children[found->second].push_back(i);
        }
    }
    return children;
}

/** \return the median of \p samples (the mean of the middle two for an even count) */
double
Median(std::vector<double> samples)
{
    std::sort(samples.begin(), samples.end());
    const std::size_t n = samples.size();
    return n % 2 == 1 ? samples[n / 2] : (samples[n / 2 - 1] + samples[n / 2]) / 2;
}

} // namespace

bool
IsGemmOp(const std::string& name)
{
    return name == "aten::mm" || name == "aten::addmm" || name == "aten::linear" ||
           name == "aten::matmul" || name == "aten::bmm";
}

std::optional<ProfileKey>
GemmProfileKey(const std::string& name, const std::vector<Dims>& shapes)
{
    auto input = [&](std::size_t i) { return i < shapes.size() ? shapes[i] : Dims(); };
    if (name == "aten::mm" || name == "aten::addmm")
    {
        const std::size_t first = name == "aten::addmm" ? 1 : 0; // addmm's input 0 is the bias
        const Dims a = input(first);
        const Dims b = input(first + 1);
        if (a.size() == 2 && b.size() == 2 && a[1] == b[0])
        {
            return Gemm(a[0], b[1], a[1]);
        }
    }
    else if (name == "aten::linear")
    {
        const Dims x = input(0);
        const Dims w = input(1); // [N, K]: y = x W^T
        if (x.size() >= 2 && w.size() == 2 && x.back() == w[1])
        {
            return Gemm(Product(x, 0, x.size() - 1), w[0], w[1]);
        }
    }
    else if (name == "aten::matmul")
    {
        const Dims a = input(0);
        const Dims b = input(1);
        if (a.size() >= 2 && b.size() == 2 && a.back() == b[0])
        {
            return Gemm(Product(a, 0, a.size() - 1), b[1], b[0]);
        }
    }
    else if (name == "aten::bmm")
    {
        const Dims a = input(0);
        const Dims b = input(1);
        if (a.size() == 3 && b.size() == 3 && a[0] == b[0] && a[2] == b[1] && a[0] > 0 &&
            Gemm(a[1], b[2], a[2]))
        {
            return ProfileKey("bmm", ShapeText({a[0], a[1], b[2], a[2]}));
        }
    }
    return std::nullopt;
}

void
ComputeProfileExtractor::AddTrace(const HostJson& linked, const std::string& source)
{
    const auto nodesIt = linked.is_object() ? linked.find("nodes") : linked.end();
    if (nodesIt == linked.end() || !nodesIt->is_array())
    {
        throw TraceError(source, "", "a linked trace needs a \"nodes\" list");
    }
    const HostJson& nodes = *nodesIt;
    std::vector<std::size_t> roots;
    const auto children = Children(nodes, roots);
    std::vector<bool> seen(nodes.size(), false);
    std::vector<std::size_t> stack(roots.rbegin(), roots.rend());
    while (!stack.empty())
    {
        const std::size_t i = stack.back();
        stack.pop_back();
        if (seen[i])
        {
            continue; // cannot happen from a root (one parent each); cheap to be sure
        }
        seen[i] = true;
        const HostJson& node = nodes[i];
        if (!IsGpuOp(node) && IsGemmOp(NodeName(node)))
        {
            if (const auto key = GemmProfileKey(NodeName(node), InputShapes(node)))
            {
                TimeGemm(nodes, i, *key, children);
                continue; // its subtree is part of it
            }
            ++m_counts.shapeUnknown;
        }
        stack.insert(stack.end(), children[i].rbegin(), children[i].rend());
    }
    ++m_counts.traces;
}

void
ComputeProfileExtractor::TimeGemm(const HostJson& nodes,
                                  std::size_t index,
                                  const ProfileKey& key,
                                  const std::vector<std::vector<std::size_t>>& children)
{
    double micros = 0;
    bool kernel = false;
    bool untimed = false;
    // Every node has one parent, so a subtree reached from a root holds no loop.
    std::vector<std::size_t> stack = children[index];
    while (!stack.empty())
    {
        const std::size_t i = stack.back();
        stack.pop_back();
        const HostJson& node = nodes[i];
        if (IsKernel(node))
        {
            kernel = true;
            const auto dur = node.find("dur");
            // Kineto's whole microseconds give a sub-microsecond kernel 0: a time, not none.
            if (dur != node.end() && dur->is_number() && dur->get<double>() >= 0)
            {
                micros += dur->get<double>();
            }
            else
            {
                untimed = true;
            }
        }
        else if (!IsGpuOp(node) && IsGemmOp(NodeName(node)))
        {
            ++m_counts.nestedInGemm;
        }
        stack.insert(stack.end(), children[i].begin(), children[i].end());
    }
    if (!kernel || untimed || micros <= 0)
    {
        // An op whose kernels were not attached (an unlinked op, a CPU run) or lack a time:
        // a partial sum would understate it.
        ++m_counts.noKernelTime;
        return;
    }
    m_samples[key].push_back(micros);
    ++m_counts.gemmOps;
}

void
ComputeProfileExtractor::AddFile(const std::string& path)
{
    InputFileStreamBuf buffer(path);
    std::istream stream(&buffer);
    HostJson document;
    try
    {
        document = HostJson::parse(stream);
    }
    catch (const HostJson::parse_error& e)
    {
        ThrowJsonError(e, path, 0); // at the error's byte
    }
    catch (const HostJson::exception& e)
    {
        ThrowJsonError(e, path, buffer.GetConsumed());
    }
    AddTrace(document, path);
}

ComputeProfile
ComputeProfileExtractor::GetProfile() const
{
    ComputeProfile profile;
    for (const auto& [key, samples] : m_samples)
    {
        profile.Add(key.first, key.second, Median(samples));
    }
    return profile;
}

const std::map<ProfileKey, std::vector<double>>&
ComputeProfileExtractor::GetSamples() const
{
    return m_samples;
}

const ProfileExtractCounts&
ComputeProfileExtractor::GetCounts() const
{
    return m_counts;
}

std::string
ComputeProfileExtractor::Summary() const
{
    const ProfileExtractCounts& c = m_counts;
    std::string out = std::to_string(m_samples.size()) +
                      " rows (median us per op and shape) from " + std::to_string(c.gemmOps) +
                      " GEMM ops of " + std::to_string(c.traces) + " linked trace(s)";
    if (c.noKernelTime > 0 || c.shapeUnknown > 0)
    {
        out += "; skipped " + std::to_string(c.noKernelTime) + " GEMM ops without timed kernels, " +
               std::to_string(c.shapeUnknown) + " without the shapes of a 2-D GEMM";
    }
    return out;
}

} // namespace ns3
