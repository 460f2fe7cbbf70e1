#include "json-document.h"

#include "json-limits.h"
#include "trace-file.h"

#include <istream>

namespace ns3
{

nlohmann::json
ReadJsonDocument(const std::string& path)
{
    InputFileStreamBuf buffer(path);
    std::istream stream(&buffer);
    try
    {
        return nlohmann::json::parse(stream);
    }
    catch (const nlohmann::json::exception& e)
    {
        ThrowJsonError(e, path, buffer.GetConsumed());
    }
}

} // namespace ns3
