#include "client-cpp/devices/vector_text.h"

#include <cmath>
#include <sstream>
#include <stdexcept>

namespace softbody::client {

double parse_number_text(const std::string& text, const std::string& what) {
  std::size_t used = 0;
  double v = 0;
  try {
    v = std::stod(text, &used);
  } catch (const std::exception&) {
    used = 0;
  }
  if (used != text.size() || !std::isfinite(v))
    throw std::invalid_argument(what + ": not a number");
  return v;
}

Vec3 parse_vec3_text(const std::string& text, const std::string& what) {
  Vec3 v{};
  std::stringstream in(text);
  std::string part;
  int n = 0;
  while (std::getline(in, part, ',')) {
    if (n == 3) break;
    v[static_cast<size_t>(n++)] = parse_number_text(part, what);
  }
  if (n != 3 || in.rdbuf()->in_avail() > 0) throw std::invalid_argument(what + ": expected x,y,z");
  return v;
}

}  // namespace softbody::client
