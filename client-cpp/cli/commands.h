// The subcommands of softbody-client. Each returns the process exit status and prints errors as
// "softbody-client: STATUS: message".
#pragma once

#include <string>
#include <vector>

#include "client-cpp/client/client.h"
#include "client-cpp/haptics/haptic_loop.h"

namespace softbody::client::cli {

struct HapticCommandOptions {
  std::string session;
  std::string device = "sim";
  std::string record_path;  // record: the CSV to write
  // "x,y,z": where the device's origin lies in the scene [m]. Empty: the origin for sim and
  // replay (their positions are scene positions), home_point() for plugin devices.
  std::string offset;
  bool json = false;
  HapticLoopOptions loop = [] {
    HapticLoopOptions o;
    o.give_up_after_s = 30;
    return o;
  }();
};

int list(Client& client, bool json);
// How far the server's tool surface `name` reaches below its pose [m] (0 for an edge through it),
// or an error naming the surfaces it offers.
Result<double> mesh_tool_reach_below(Client& client, const std::string& name);
struct CreateOptions {
  std::string scene;  // a shipped scene's name or a local .json file
  std::string mesh;   // a local mesh file to upload
  std::vector<std::string> overrides;
  std::string label;
  bool paused = false;
  bool json = false;
};

int create(Client& client, const CreateOptions& options);
int remove(Client& client, const std::string& id);
int control(Client& client, const std::string& id, const std::string& action, int steps);
struct WatchOptions {
  std::string session;
  double duration_s = 0;  // 0: until interrupted
  double rate_hz = 30;
  double reconnect_for_s = 30;  // give up when the stream has not worked for this long
  bool json = false;
};

int watch(Client& client, const WatchOptions& options);
// haptic and record: runs the loop; record also writes the device's motion and forces.
int haptic(Client& client, const HapticCommandOptions& options);
// Moves session `id` to `target`; prints where it went and the step it continues from.
int migrate(Client& client, const std::string& id, const std::string& target);
int status(Client& client, bool json);

}  // namespace softbody::client::cli
