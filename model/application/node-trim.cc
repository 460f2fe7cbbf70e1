#include "node-trim.h"

#include <algorithm>
#include <array>
#include <string_view>

namespace ns3
{

bool
IsUnsimulatedAttribute(const std::string& name)
{
    // Written by the converter from the PyTorch host and Kineto traces (doc/chakra.md); read
    // only by the converter and linker themselves. A list of what to drop, not of what to keep,
    // so that an attribute a later part of the simulation reads is never lost by default.
    // string_views: a name of another length is told apart without reading its characters.
    static constexpr std::array<std::string_view, 9> kUnsimulated{"rf_id",
                                                                  "fw_parent",
                                                                  "seq_id",
                                                                  "scope",
                                                                  "fw_tid",
                                                                  "op_schema",
                                                                  "device",
                                                                  "correlation",
                                                                  "cat"};
    const std::string_view view(name);
    return std::any_of(kUnsimulated.begin(), kUnsimulated.end(), [view](std::string_view dropped) {
        return view == dropped;
    });
}

void
DropUnsimulatedFields(ChakraProtoMsg::Node& node)
{
    auto* attributes = node.mutable_attr();
    int kept = 0;
    for (int i = 0; i < attributes->size(); ++i)
    {
        if (IsUnsimulatedAttribute(attributes->Get(i).name()))
        {
            continue;
        }
        // Every element between kept and i was dropped: the swap keeps the kept ones in order
        // (FindAttr returns the first of repeated names).
        if (kept != i)
        {
            attributes->SwapElements(kept, i);
        }
        ++kept;
    }
    attributes->DeleteSubrange(kept, attributes->size() - kept);
    if (node.type() != ChakraProtoMsg::METADATA_NODE)
    {
        node.clear_inputs();
        node.clear_outputs();
    }
}

} // namespace ns3
