// Structured logs: one line per event in logfmt (key=value) through spdlog, always with the
// session id where there is one, e.g.
//   2026-11-22T10:00:00.123 level=info event=session_created session=5f3a9c21 scene=default
#pragma once

#include <spdlog/spdlog.h>

#include <string>

namespace softbody::server {

// Sets the pattern and level ("trace", "debug", "info", "warn", "error", "off"); false for an
// unknown level.
bool configure_logging(const std::string& level);

// Quotes a value for logfmt when it contains spaces, quotes or '='.
std::string logfmt_value(const std::string& value);

}  // namespace softbody::server
