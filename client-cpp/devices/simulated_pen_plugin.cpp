// The simulated pen packaged as a device plugin (libsoftbody_simulated_pen.so): the in-tree
// example of the plugin ABI, and what the tests load to exercise the dlopen path.
#include <cstdio>
#include <exception>

#include "client-cpp/devices/simulated_pen.h"
#include "client-cpp/devices/softbody_haptic_plugin.h"

namespace {

using softbody::client::SimulatedPen;

void* pen_open(const char* config, char* error, size_t error_size) {
  try {
    return new SimulatedPen(softbody::client::parse_simulated_pen_config(config ? config : ""));
  } catch (const std::exception& e) {
    std::snprintf(error, error_size, "%s", e.what());
    return nullptr;
  }
}

int pen_read(void* device, double time_s, softbody_haptic_state* state) {
  const auto s = static_cast<SimulatedPen*>(device)->read(time_s);
  for (int k = 0; k < 3; ++k) {
    state->position[k] = s.position[static_cast<size_t>(k)];
    state->velocity[k] = s.velocity[static_cast<size_t>(k)];
  }
  for (int k = 0; k < 4; ++k) state->orientation[k] = s.orientation[static_cast<size_t>(k)];
  state->buttons = s.buttons;
  return 0;
}

int pen_write_force(void* device, double time_s, const double force[3]) {
  static_cast<SimulatedPen*>(device)->write_force({force[0], force[1], force[2]}, time_s);
  return 0;
}

int pen_finished(void* device) {
  return static_cast<SimulatedPen*>(device)->finished() ? 1 : 0;
}

void pen_close(void* device) {
  delete static_cast<SimulatedPen*>(device);
}

const softbody_haptic_plugin kPlugin = {
    SOFTBODY_HAPTIC_PLUGIN_ABI_VERSION,
    sizeof(softbody_haptic_plugin),
    "softbody simulated pen",
    pen_open,
    pen_read,
    pen_write_force,
    pen_finished,
    pen_close,
};

}  // namespace

extern "C" __attribute__((visibility("default"))) const softbody_haptic_plugin*
softbody_haptic_plugin_v1(void) {
  return &kPlugin;
}
