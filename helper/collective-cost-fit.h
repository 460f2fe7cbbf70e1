/*
 * The software cost of collective calls, calibrated from a measured run: what a call took
 * beyond the network transfer the model gives it (NCCL's kernel launch and protocol setup,
 * gloo's CPU work on its worker thread).
 */
#ifndef CHAKRA_COLLECTIVE_COST_FIT_H
#define CHAKRA_COLLECTIVE_COST_FIT_H

#include "replay-validation.h"

#include <cstddef>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace ns3
{

/**
 * \ingroup chakra-helper
 * \brief A collective call's software cost: fixedUs + bytes x usPerByte on every rank
 * (ChakraApplication's CollectiveOverhead and CollectiveOverheadRate).
 */
struct CollectiveCostFit
{
    double fixedUs{0};    //!< per call, microseconds
    double usPerByte{0};  //!< per byte of the call, microseconds
    std::size_t calls{0}; //!< calls the fit used

    /** \return the cost of a call of \p bytes, in microseconds */
    double CostUs(uint64_t bytes) const;
    /** \return the fit in words: "8.1 us + 31.2 us/MiB per call (least squares over 8 calls)" */
    std::string Describe() const;
};

/**
 * Fits cost = a + b x bytes by least squares to points (bytes, residual us), with a >= 0 and
 * b >= 0 (a negative coefficient is set to 0 and the other refitted alone). With an intercept,
 * the residuals of the fit sum to zero: over the calls, the fitted cost adds up to what was
 * measured.
 * \param points (bytes, residual) per call
 * \return the fit (zero with no points)
 */
CollectiveCostFit FitCollectiveCost(const std::vector<std::pair<uint64_t, double>>& points);

/**
 * Fits the software cost to a run simulated without it: per measured call of two or more
 * members, the measured transfer minus the simulated one (both from the last arrival to the
 * completion, see TimeCall).
 * \param uncalibrated the validation of that run
 * \return the fit
 */
CollectiveCostFit FitCollectiveCost(const ReplayValidation& uncalibrated);

} // namespace ns3

#endif // CHAKRA_COLLECTIVE_COST_FIT_H
