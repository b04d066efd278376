#include "client-cpp/load/load_report.h"

#include <cmath>
#include <cstdarg>
#include <cstdio>

namespace softbody::client {
namespace {

double number(const nlohmann::json& j, double fallback) {
  return j.is_number() ? j.get<double>() : fallback;
}

double field(const nlohmann::json& summary, const char* name) {
  const double none = std::nan("");
  return summary.is_object() ? number(summary.value(name, nlohmann::json()), none) : none;
}

std::string printf_string(const char* format, ...) __attribute__((format(printf, 1, 2)));
std::string printf_string(const char* format, ...) {
  char text[512];
  va_list args;
  va_start(args, format);
  std::vsnprintf(text, sizeof text, format, args);
  va_end(args);
  return text;
}

std::string percentile_row(const char* label, const nlohmann::json& summary) {
  return printf_string("  %-26s %9.2f %9.2f %9.2f %9.2f %9ld\n", label, field(summary, "p50"),
                       field(summary, "p99"), field(summary, "p999"), field(summary, "max"),
                       static_cast<long>(number(summary.value("count", nlohmann::json()), 0)));
}

std::string format_stage(const nlohmann::json& r) {
  std::string out =
      printf_string("softbody-load: %d sessions of '%s' on %s, %.0f s measured\n",
                    r["sessions"].get<int>(), r["scene"].get<std::string>().c_str(),
                    r["server"].get<std::string>().c_str(), r["duration_s"].get<double>());
  out += printf_string("  %-26s %9s %9s %9s %9s %9s\n", "", "p50", "p99", "p99.9", "max", "count");
  out += percentile_row("force age at each tick ms", r["force_age_ms"]);
  out += percentile_row("force round trip ms", r["force_reply_latency_ms"]);
  out += percentile_row("frame latency ms", r["frame_latency_ms"]);
  out += percentile_row("frame interval ms", r["frame_interval_ms"]);
  out += printf_string(
      "  haptic deadline %.1f ms: missed at %.3f %% of %ld ticks (load generator late %ld "
      "times)\n",
      r["deadline_ms"].get<double>(), 100 * r["deadline_miss_rate"].get<double>(),
      r["haptic_ticks"].get<long>(), r["generator_overruns"].get<long>());
  out += printf_string("  real-time factor: min %.4f, median %.4f\n",
                       field(r["real_time_factor"], "min"), field(r["real_time_factor"], "p50"));
  out += printf_string(
      "  commands %ld sent, %ld replies missing, %ld coalesced, %ld rejected; frames %ld of %.0f "
      "(%.3f); errors %ld\n",
      r["commands_sent"].get<long>(), r["replies_missing"].get<long>(),
      r["commands_coalesced"].get<long>(), r["commands_rejected"].get<long>(),
      r["frames_received"].get<long>(), r["frames_expected"].get<double>(),
      r["frame_ratio"].get<double>(), r["errors"]["total"].get<long>());
  out += "  frame latency: " + r["frame_latency_clock"].get<std::string>() + "\n";
  for (const auto& c : r.value("thresholds_crossed", nlohmann::json::array()))
    out += "  threshold crossed: " + c.get<std::string>() + "\n";
  return out;
}

}  // namespace

std::vector<std::string> check_thresholds(const nlohmann::json& r, const LoadThresholds& t) {
  std::vector<std::string> crossed;
  if (r.contains("refused")) return {"sessions refused: " + r["refused"].get<std::string>()};
  if (t.max_reply_p99_ms >= 0) {
    const double p99 = number(r["force_reply_latency_ms"].value("p99", nlohmann::json()), 0);
    if (p99 > t.max_reply_p99_ms)
      crossed.push_back("force reply p99 " + std::to_string(p99) + " ms > " +
                        std::to_string(t.max_reply_p99_ms));
  }
  if (t.max_replies_missing >= 0 && r["replies_missing"].get<long>() > t.max_replies_missing)
    crossed.push_back("replies missing " + r["replies_missing"].dump() + " > " +
                      std::to_string(t.max_replies_missing));
  if (t.max_errors >= 0 && r["errors"]["total"].get<long>() > t.max_errors)
    crossed.push_back("errors " + r["errors"]["total"].dump() + " > " +
                      std::to_string(t.max_errors));
  if (t.min_real_time_factor >= 0) {
    const double rtf = number(r["real_time_factor"].value("min", nlohmann::json()), 0);
    if (rtf < t.min_real_time_factor)
      crossed.push_back("real-time factor min " + std::to_string(rtf) + " < " +
                        std::to_string(t.min_real_time_factor));
  }
  if (t.min_frame_ratio >= 0 && r["frame_ratio"].get<double>() < t.min_frame_ratio)
    crossed.push_back("frames received/expected " + r["frame_ratio"].dump() + " < " +
                      std::to_string(t.min_frame_ratio));
  if (t.max_deadline_miss_rate >= 0 &&
      r["deadline_miss_rate"].get<double>() > t.max_deadline_miss_rate)
    crossed.push_back("haptic deadline misses " + r["deadline_miss_rate"].dump() + " > " +
                      std::to_string(t.max_deadline_miss_rate));
  return crossed;
}

std::vector<std::string> apply_thresholds(nlohmann::json& report, const LoadThresholds& t) {
  if (!report.contains("stages")) {
    const auto crossed = check_thresholds(report, t);
    report["thresholds_crossed"] = crossed;
    return crossed;
  }
  std::vector<std::string> all;
  int capacity = 0;
  bool held = true;
  for (auto& stage : report["stages"]) {
    const auto crossed = check_thresholds(stage, t);
    stage["thresholds_crossed"] = crossed;
    held = held && crossed.empty();
    if (held) capacity = stage["sessions"].get<int>();
    for (const auto& c : crossed) all.push_back(stage["sessions"].dump() + " sessions: " + c);
  }
  report["capacity_sessions"] = capacity;
  return all;
}

std::string format_report(const nlohmann::json& report) {
  if (!report.contains("stages")) return format_stage(report);
  std::string out = printf_string("softbody-load ramp of '%s' on %s\n",
                                  report["scene"].get<std::string>().c_str(),
                                  report["server"].get<std::string>().c_str());
  out += printf_string("  %8s %9s %12s %12s %12s %10s %7s  %s\n", "sessions", "RTF min",
                       "force age p99", "deadline miss", "frame lat p99", "frames", "errors",
                       "thresholds");
  for (const auto& s : report["stages"]) {
    if (s.contains("refused")) {
      out += printf_string("  %8d refused: %s\n", s["sessions"].get<int>(),
                           s["refused"].get<std::string>().c_str());
      continue;
    }
    const auto crossed = s.value("thresholds_crossed", nlohmann::json::array());
    // Without haptic clients (or subscribers) there is nothing to show in their columns.
    const bool haptic = s["haptic_ticks"].get<long>() > 0;
    const bool frames = s["frames_received"].get<long>() > 0;
    out += printf_string("  %8d %9.4f ", s["sessions"].get<int>(),
                         field(s["real_time_factor"], "min"));
    out += haptic ? printf_string("%10.2f ms %11.3f %% ", field(s["force_age_ms"], "p99"),
                                  100 * s["deadline_miss_rate"].get<double>())
                  : printf_string("%13s %13s ", "-", "-");
    out += frames ? printf_string("%9.2f ms ", field(s["frame_latency_ms"], "p99"))
                  : printf_string("%12s ", "-");
    out += printf_string("%10.3f %7ld  %s\n", s["frame_ratio"].get<double>(),
                         s["errors"]["total"].get<long>(),
                         crossed.empty() ? "held" : crossed[0].get<std::string>().c_str());
  }
  if (report.contains("capacity_sessions"))
    out += printf_string("  capacity (the most sessions before a threshold was crossed): %d\n",
                         report["capacity_sessions"].get<int>());
  return out;
}

}  // namespace softbody::client
