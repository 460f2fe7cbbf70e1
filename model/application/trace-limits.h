/*
 * Bounds on the numbers a trace hands to the simulation (durations, sizes): every place where a
 * trace number becomes an ns-3 Time or a byte count goes through these checks, so a mutated or
 * absurd trace is an error naming the node and the value, not an overflow or a run of hours.
 */
#ifndef CHAKRA_TRACE_LIMITS_H
#define CHAKRA_TRACE_LIMITS_H

#include "ns3/et-node.h"
#include "ns3/nstime.h"

#include <cstdint>
#include <string>

namespace ns3
{

/**
 * \ingroup chakra-application
 * Longest duration of one node, in microseconds: one hour. A training step's ops last
 * microseconds to seconds (a whole profiled iteration, tens of seconds at most); an op of an hour
 * is a damaged trace, and replaying it would only make the simulation run for hours. (ns-3's
 * Time would hold 292 years: the bound is about sense, not about overflow.)
 */
constexpr uint64_t kMaxNodeMicros = 3600ull * 1000 * 1000;

/**
 * \ingroup chakra-application
 * Largest comm_size of one call: 1 TiB. No GPU holds more than a few hundred GB, and a
 * collective moves at most a few times its buffer; a terabyte call is a damaged trace (it would
 * also simulate for hours at packet level).
 */
constexpr uint64_t kMaxCommBytes = 1ull << 40;

/**
 * Converts a node's duration to simulated time.
 * \param node the node (named in the error)
 * \param field the field the value comes from ("duration_micros", ...)
 * \param micros the value, in microseconds
 * \return the time
 * \throws TraceError if the value is negative, not finite or above kMaxNodeMicros
 */
Time NodeDuration(const EtNode& node, const std::string& field, double micros);

/**
 * Converts a node's duration given as whole microseconds (the duration_micros field).
 * \throws TraceError if it is above kMaxNodeMicros
 */
Time NodeDuration(const EtNode& node, const std::string& field, uint64_t micros);

/**
 * \param node a communication node
 * \return its comm_size
 * \throws TraceError if it is above kMaxCommBytes (or not a valid integer)
 */
uint64_t NodeCommBytes(const EtNode& node);

} // namespace ns3

#endif // CHAKRA_TRACE_LIMITS_H
