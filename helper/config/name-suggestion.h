/*
 * "Did you mean": the known name closest to a misspelt one.
 */
#ifndef CHAKRA_NAME_SUGGESTION_H
#define CHAKRA_NAME_SUGGESTION_H

#include <string>
#include <vector>

namespace ns3
{

/**
 * \return \p name lower-cased without '-', '_' and ':' ("nicBandwidth", "nic-bandwidth" and
 *         "NIC_BANDWIDTH" fold alike)
 */
std::string FoldName(const std::string& name);

/**
 * \param given the name a user typed
 * \param known the valid names
 * \return the known name closest to \p given (edit distance on folded names, within about a
 *         third of its length, or one that contains it or is contained in it), or "" if none
 *         is close
 */
std::string SuggestName(const std::string& given, const std::vector<std::string>& known);

/**
 * \return " (did you mean 'x'?)" for SuggestName's answer, or "" when there is none
 */
std::string DidYouMean(const std::string& given,
                       const std::vector<std::string>& known,
                       const std::string& prefix = "");

} // namespace ns3

#endif // CHAKRA_NAME_SUGGESTION_H
