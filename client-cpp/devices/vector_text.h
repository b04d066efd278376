// Numbers and "x,y,z" vectors typed by users (device configurations, --offset), with errors that
// quote what was typed.
#pragma once

#include <string>

#include "client-cpp/devices/haptic_device.h"

namespace softbody::client {

// std::invalid_argument "WHAT: not a number" unless `text` is one finite number.
double parse_number_text(const std::string& text, const std::string& what);
// std::invalid_argument "WHAT: expected x,y,z" unless `text` is three finite numbers.
Vec3 parse_vec3_text(const std::string& text, const std::string& what);

}  // namespace softbody::client
