#include "trace-attribute.h"

#include "ns3/et-attribute-writer.h"

#include <algorithm>
#include <iterator>
#include <limits>

namespace ns3
{

bool
IsConverterAttribute(std::string_view name)
{
    // Asked for every attribute of every node: string_view comparisons (lengths first) over a
    // short list cost a fraction of a std::set<std::string> lookup.
    static constexpr std::string_view kNames[] = {"is_cpu_op",
                                                  "comm_type",
                                                  "comm_size",
                                                  "pg_name",
                                                  "comm_src",
                                                  "comm_dst",
                                                  "comm_tag",
                                                  "root_rank",
                                                  "tid",
                                                  "stream",
                                                  "device",
                                                  "correlation",
                                                  "duration_exact_micros",
                                                  "cat",
                                                  "ts",
                                                  "dur",
                                                  "inclusive_dur",
                                                  "exclusive_dur",
                                                  "inter_thread_dep",
                                                  "sync_deps"};
    return std::find(std::begin(kNames), std::end(kNames), name) != std::end(kNames);
}

void
AddTraceAttribute(ChakraProtoMsg::Node& node, const PyTorchAttr& attr)
{
    const nlohmann::json& value = attr.value;
    if (value.is_null())
    {
        return;
    }
    EtAttributeWriter out(node.mutable_attr());
    if (value.is_number_unsigned())
    {
        uint64_t u = value.get<uint64_t>();
        if (u <= static_cast<uint64_t>(std::numeric_limits<int64_t>::max()))
        {
            out.Int64(attr.name, static_cast<int64_t>(u));
        }
        else
        {
            out.Uint64(attr.name, u);
        }
    }
    else if (value.is_number_integer())
    {
        out.Int64(attr.name, value.get<int64_t>());
    }
    else if (value.is_number())
    {
        out.Double(attr.name, value.get<double>());
    }
    else if (value.is_boolean())
    {
        out.Bool(attr.name, value.get<bool>());
    }
    else if (value.is_string())
    {
        out.String(attr.name, value.get_ref<const std::string&>());
    }
    else
    {
        out.String(attr.name, value.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace));
    }
}

} // namespace ns3
