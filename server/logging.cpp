#include "server/logging.h"

#include <spdlog/sinks/stdout_sinks.h>

namespace softbody::server {

bool configure_logging(const std::string& level) {
  const spdlog::level::level_enum parsed = spdlog::level::from_str(level);
  if (parsed == spdlog::level::off && level != "off") return false;
  auto logger = spdlog::stderr_logger_mt("softbody");
  spdlog::set_default_logger(logger);
  spdlog::set_pattern("%Y-%m-%dT%H:%M:%S.%e level=%l %v");
  spdlog::set_level(parsed);
  spdlog::flush_on(spdlog::level::info);
  return true;
}

std::string logfmt_value(const std::string& value) {
  if (!value.empty() && value.find_first_of(" \"=\t\n") == std::string::npos) return value;
  std::string out = "\"";
  for (char c : value) {
    if (c == '"' || c == '\\') out += '\\';
    out += c == '\n' ? ' ' : c;
  }
  return out + "\"";
}

}  // namespace softbody::server
