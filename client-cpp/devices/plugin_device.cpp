#include "client-cpp/devices/plugin_device.h"

#include <dlfcn.h>

#include <stdexcept>

namespace softbody::client {

PluginDevice::PluginDevice(const std::string& path, const std::string& config) : path_(path) {
  library_ = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!library_) throw std::runtime_error("haptic plugin " + path + ": " + dlerror());
  auto fail = [&](const std::string& why) {
    dlclose(library_);
    library_ = nullptr;
    throw std::runtime_error("haptic plugin " + path + ": " + why);
  };
  void* symbol = dlsym(library_, SOFTBODY_HAPTIC_PLUGIN_ENTRY);
  if (!symbol) fail("does not export " SOFTBODY_HAPTIC_PLUGIN_ENTRY "()");
  auto entry = reinterpret_cast<softbody_haptic_plugin_entry>(symbol);
  plugin_ = entry();
  if (!plugin_) fail(SOFTBODY_HAPTIC_PLUGIN_ENTRY "() returned NULL");
  if (plugin_->abi_version != SOFTBODY_HAPTIC_PLUGIN_ABI_VERSION)
    fail("ABI version " + std::to_string(plugin_->abi_version) + ", this client speaks " +
         std::to_string(SOFTBODY_HAPTIC_PLUGIN_ABI_VERSION));
  if (plugin_->struct_size < sizeof(softbody_haptic_plugin))
    fail("plugin table too small (" + std::to_string(plugin_->struct_size) + " bytes)");
  if (!plugin_->open || !plugin_->read || !plugin_->write_force || !plugin_->close)
    fail("open, read, write_force and close are required");
  char error[512] = "";
  device_ = plugin_->open(config.c_str(), error, sizeof error);
  if (!device_) fail(std::string("open(\"") + config + "\") failed: " + error);
}

PluginDevice::~PluginDevice() {
  if (device_) plugin_->close(device_);
  if (library_) dlclose(library_);
}

std::string PluginDevice::name() const {
  return std::string(plugin_->name ? plugin_->name : "plugin") + " (" + path_ + ")";
}

DeviceState PluginDevice::read(double time_s) {
  softbody_haptic_state s{};
  if (plugin_->read(device_, time_s, &s) != 0) {
    ++failures_;  // keep the last good state; the loop's force clamps still apply
    return last_;
  }
  for (int k = 0; k < 3; ++k) {
    last_.position[k] = s.position[k];
    last_.velocity[k] = s.velocity[k];
  }
  for (int k = 0; k < 4; ++k) last_.orientation[k] = s.orientation[k];
  last_.buttons = s.buttons;
  return last_;
}

void PluginDevice::write_force(const Vec3& force, double time_s) {
  if (plugin_->write_force(device_, time_s, force.data()) != 0) ++failures_;
}

bool PluginDevice::finished() const {
  return plugin_->finished && plugin_->finished(device_) != 0;
}

}  // namespace softbody::client
