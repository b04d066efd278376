// Devices by name, as the command-line tools take them:
//   sim[:CONFIG]          the simulated pen (CONFIG: see parse_simulated_pen_config)
//   replay:FILE           a recording (devices/recording.h)
//   plugin:PATH[:CONFIG]  a device plugin shared library (devices/softbody_haptic_plugin.h)
#pragma once

#include <memory>
#include <string>

#include "client-cpp/client/client.h"
#include "client-cpp/devices/haptic_device.h"

namespace softbody::client {

// Where a tool of `tool_radius` hovers just clear (5 mm) of the top of the body: above its highest
// surface vertex (the one nearest the middle among equals). The simulated pen starts there, and a
// plugin device's origin is put there unless the user gives a workspace offset, so that a device
// works over the body out of the box.
Vec3 home_point(const Topology& topology, double tool_radius);

// A simulated-pen script that presses straight down on the top of the body from home_point.
std::string default_pen_config(const Topology& topology, double tool_radius, double period_s = 4,
                               int cycles = 0);

// True for a spec whose device reports positions in its own frame (plugins: vendor devices).
bool device_has_own_frame(const std::string& spec);

// Throws std::invalid_argument / std::runtime_error with a message naming the problem.
// `sim_default_config`: the simulated pen's configuration when a `sim` spec gives none (a plugin's
// configuration is its own business: empty unless given).
std::unique_ptr<HapticDevice> make_device(const std::string& spec,
                                          const std::string& sim_default_config = "");

}  // namespace softbody::client
