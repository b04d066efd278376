// The load tester's verdicts and its report for people: thresholds a report crosses, and the
// summary table softbody-load prints unless asked for JSON.
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "client-cpp/load/load_run.h"

namespace softbody::client {

// The thresholds one stage's report crosses, one message each (empty: all met).
std::vector<std::string> check_thresholds(const nlohmann::json& report,
                                          const LoadThresholds& thresholds);

// Adds "thresholds_crossed" to every stage (and, for a ramp, "capacity_sessions": the most
// sessions of a stage that crossed none, 0 when none did) and returns every crossing, prefixed
// with its stage's session count for a ramp.
std::vector<std::string> apply_thresholds(nlohmann::json& report, const LoadThresholds& thresholds);

// A summary table of a report (single stage or ramp).
std::string format_report(const nlohmann::json& report);

}  // namespace softbody::client
