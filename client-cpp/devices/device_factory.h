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

// A simulated-pen script that presses straight down on the top of the body: above its highest
// surface vertex (the one nearest the middle among equals), starting `clearance` above contact.
std::string default_pen_config(const Topology& topology, double tool_radius, double period_s = 4,
                               int cycles = 0);

// Throws std::invalid_argument / std::runtime_error with a message naming the problem.
// `sim_default_config`: the simulated pen's configuration when a `sim` spec gives none (a plugin's
// configuration is its own business: empty unless given).
std::unique_ptr<HapticDevice> make_device(const std::string& spec,
                                          const std::string& sim_default_config = "");

}  // namespace softbody::client
