#include "collective-cost-fit.h"

#include "ns3/text-format.h"

#include <algorithm>

namespace ns3
{

double
CollectiveCostFit::CostUs(uint64_t bytes) const
{
    return fixedUs + usPerByte * static_cast<double>(bytes);
}

std::string
CollectiveCostFit::Describe() const
{
    if (calls == 0)
    {
        return "none (no measured call of two or more ranks)";
    }
    return FormatFixed(fixedUs, 1) + " us + " + FormatFixed(usPerByte * 1048576.0, 1) +
           " us/MiB per call (least squares over " + std::to_string(calls) + " measured call" +
           (calls == 1 ? "" : "s") + ": measured transfer minus simulated transfer)";
}

CollectiveCostFit
FitCollectiveCost(const std::vector<std::pair<uint64_t, double>>& points)
{
    CollectiveCostFit fit;
    fit.calls = points.size();
    if (points.empty())
    {
        return fit;
    }
    const auto n = static_cast<double>(points.size());
    double meanX = 0;
    double meanY = 0;
    for (const auto& [bytes, residual] : points)
    {
        meanX += static_cast<double>(bytes) / n;
        meanY += residual / n;
    }
    double sxx = 0;
    double sxy = 0;
    double sxxOrigin = 0;
    double sxyOrigin = 0;
    for (const auto& [bytes, residual] : points)
    {
        const double x = static_cast<double>(bytes);
        sxx += (x - meanX) * (x - meanX);
        sxy += (x - meanX) * (residual - meanY);
        sxxOrigin += x * x;
        sxyOrigin += x * residual;
    }
    // Ordinary least squares; one size only (sxx 0) or a falling cost: a constant.
    double slope = sxx > 0 ? sxy / sxx : 0;
    double intercept = meanY - slope * meanX;
    if (slope < 0)
    {
        slope = 0;
        intercept = meanY;
    }
    if (intercept < 0)
    {
        // A cost cannot be negative: through the origin.
        intercept = 0;
        slope = sxxOrigin > 0 ? std::max(0.0, sxyOrigin / sxxOrigin) : 0;
    }
    fit.fixedUs = intercept;
    fit.usPerByte = slope;
    return fit;
}

CollectiveCostFit
FitCollectiveCost(const ReplayValidation& uncalibrated)
{
    std::vector<std::pair<uint64_t, double>> points;
    for (const auto& c : uncalibrated.collectives)
    {
        if (c.measured && c.members >= 2)
        {
            points.emplace_back(c.bytes, c.measured->transferUs - c.simulated.transferUs);
        }
    }
    return FitCollectiveCost(points);
}

} // namespace ns3
