#include "client-cpp/devices/device_factory.h"

#include <cmath>
#include <sstream>
#include <stdexcept>

#include "client-cpp/devices/plugin_device.h"
#include "client-cpp/devices/replay_device.h"
#include "client-cpp/devices/simulated_pen.h"

namespace softbody::client {

namespace {
constexpr double kClearance = 0.005;  // [m] between the tool and the body at home
}  // namespace

Vec3 home_point(const Topology& topology, double tool_radius) {
  const auto& rest = topology.rest_positions;
  double top = -1e300;
  for (std::uint32_t id : topology.surface_vertex_ids) top = std::max(top, rest[3 * id + 1]);
  const double cx = 0.5 * (topology.bounds_min[0] + topology.bounds_max[0]);
  const double cz = 0.5 * (topology.bounds_min[2] + topology.bounds_max[2]);
  const double height = topology.bounds_max[1] - topology.bounds_min[1];
  double best = 1e300;
  std::uint32_t chosen = topology.surface_vertex_ids.empty() ? 0 : topology.surface_vertex_ids[0];
  for (std::uint32_t id : topology.surface_vertex_ids) {
    if (rest[3 * id + 1] < top - 1e-3 - 0.02 * height) continue;
    const double d = std::hypot(rest[3 * id] - cx, rest[3 * id + 2] - cz);
    if (d < best) best = d, chosen = id;
  }
  return {rest[3 * chosen], rest[3 * chosen + 1] + tool_radius + kClearance, rest[3 * chosen + 2]};
}

std::string default_pen_config(const Topology& topology, double tool_radius, double period_s,
                               int cycles) {
  const Vec3 start = home_point(topology, tool_radius);
  const double height = topology.bounds_max[1] - topology.bounds_min[1];
  std::ostringstream c;
  c.precision(9);
  c << "start=" << start[0] << ',' << start[1] << ',' << start[2]
    << ";direction=0,-1,0;depth=" << kClearance + 0.2 * height << ";period=" << period_s
    << ";cycles=" << cycles;
  return c.str();
}

bool device_has_own_frame(const std::string& spec) {
  return spec.rfind("plugin:", 0) == 0;
}

std::unique_ptr<HapticDevice> make_device(const std::string& spec,
                                          const std::string& sim_default_config) {
  const auto colon = spec.find(':');
  const std::string kind = spec.substr(0, colon);
  const std::string rest = colon == std::string::npos ? "" : spec.substr(colon + 1);
  if (kind == "sim")
    return std::make_unique<SimulatedPen>(
        parse_simulated_pen_config(rest.empty() ? sim_default_config : rest));
  if (kind == "replay") {
    if (rest.empty()) throw std::invalid_argument("--device replay:FILE needs a file");
    return std::make_unique<ReplayDevice>(rest);
  }
  if (kind == "plugin") {
    if (rest.empty()) throw std::invalid_argument("--device plugin:PATH[:CONFIG] needs a path");
    const auto config_colon = rest.find(':');
    const std::string path = rest.substr(0, config_colon);
    const std::string config =
        config_colon == std::string::npos ? "" : rest.substr(config_colon + 1);
    return std::make_unique<PluginDevice>(path, config);
  }
  throw std::invalid_argument("unknown device '" + spec +
                              "' (sim[:CONFIG], replay:FILE, plugin:PATH[:CONFIG])");
}

}  // namespace softbody::client
