#include "name-suggestion.h"

#include <algorithm>
#include <cctype>

namespace ns3
{

std::string
FoldName(const std::string& name)
{
    std::string folded;
    for (char c : name)
    {
        if (c != '-' && c != '_' && c != ':')
        {
            folded += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
        }
    }
    return folded;
}

namespace
{

/** Levenshtein distance (insertions, deletions and substitutions cost 1). */
std::size_t
EditDistance(const std::string& a, const std::string& b)
{
    std::vector<std::size_t> row(b.size() + 1);
    for (std::size_t j = 0; j <= b.size(); ++j)
    {
        row[j] = j;
    }
    for (std::size_t i = 1; i <= a.size(); ++i)
    {
        std::size_t diagonal = row[0];
        row[0] = i;
        for (std::size_t j = 1; j <= b.size(); ++j)
        {
            const std::size_t above = row[j];
            row[j] = std::min({row[j] + 1, row[j - 1] + 1, diagonal + (a[i - 1] != b[j - 1])});
            diagonal = above;
        }
    }
    return row[b.size()];
}

} // namespace

std::string
SuggestName(const std::string& given, const std::vector<std::string>& known)
{
    const std::string folded = FoldName(given);
    if (folded.empty())
    {
        return "";
    }
    std::string best;
    std::size_t bestDistance = std::max<std::size_t>(2, folded.size() / 3) + 1;
    for (const std::string& name : known)
    {
        const std::string candidate = FoldName(name);
        std::size_t distance = EditDistance(folded, candidate);
        // "rail-only" for "rail", "timeline" for "timeline-file": a prefix or a part of a
        // longer name is a good guess too, unless it is a single letter.
        if (distance >= bestDistance && folded.size() >= 3 &&
            (candidate.find(folded) != std::string::npos ||
             (candidate.size() >= 3 && folded.find(candidate) != std::string::npos)))
        {
            distance = bestDistance - 1;
        }
        if (distance < bestDistance)
        {
            bestDistance = distance;
            best = name;
        }
    }
    return best;
}

std::string
DidYouMean(const std::string& given,
           const std::vector<std::string>& known,
           const std::string& prefix)
{
    const std::string suggestion = SuggestName(given, known);
    return suggestion.empty() ? "" : " (did you mean '" + prefix + suggestion + "'?)";
}

} // namespace ns3
