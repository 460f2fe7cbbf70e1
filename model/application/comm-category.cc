#include "comm-category.h"

#include <cctype>

namespace ns3
{

CommCategory
ClassifyCommunication(const std::string& pgName, bool pointToPoint)
{
    std::string family;
    for (char c : pgName)
    {
        if (!std::isalpha(static_cast<unsigned char>(c)))
        {
            break;
        }
        family += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    }
    if (family == "tp")
    {
        return CommCategory::Tensor;
    }
    if (family == "cp")
    {
        return CommCategory::Context;
    }
    if (family == "ep")
    {
        return CommCategory::Expert;
    }
    if (family == "dp" || family == "dpcp" || family == "edp" || family == "emb")
    {
        return CommCategory::Data;
    }
    if (family == "pp" || pointToPoint)
    {
        return CommCategory::Pipeline;
    }
    return CommCategory::Other;
}

const char*
CommCategoryLabel(CommCategory category)
{
    switch (category)
    {
    case CommCategory::Tensor:
        return "TP";
    case CommCategory::Context:
        return "CP";
    case CommCategory::Expert:
        return "EP";
    case CommCategory::Data:
        return "DP";
    case CommCategory::Other:
        return "other";
    case CommCategory::Pipeline:
        return "PP";
    }
    return "other";
}

std::ostream&
operator<<(std::ostream& os, CommCategory category)
{
    return os << CommCategoryLabel(category);
}

} // namespace ns3
