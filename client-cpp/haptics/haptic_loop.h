// The 1 kHz haptic loop (design guide §5, notes/anchors.md §4). A dedicated thread, on its own
// core when there is one, wakes at a fixed rate, reads the device, computes the force LOCALLY from
// the newest coupling model the server sent (F0 + dF/dx (x - x0) + dF/dv (v - v0)), applies the
// safety filter, writes the force, and sends the tool command without waiting for anything.
// Replies arrive on gRPC threads and hand the model over through a wait-free triple buffer.
#pragma once

#include <atomic>
#include <limits>
#include <memory>
#include <mutex>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <thread>

#include "client-cpp/client/client.h"
#include "client-cpp/client/failure_streak.h"
#include "client-cpp/devices/haptic_device.h"
#include "client-cpp/haptics/force_safety.h"
#include "client-cpp/haptics/histogram.h"
#include "client-cpp/haptics/passivity_controller.h"
#include "client-cpp/haptics/periodic_timer.h"
#include "client-cpp/haptics/swap_blend.h"
#include "client-cpp/haptics/triple_buffer.h"
#include "codec/coupling_model.h"
#include "codec/tool_contact.h"

namespace softbody::client {

// How the tool touches the body (ToolCommand fields; 0 means the server's default).
struct ToolSettings {
  softbody::v1::ToolMode mode = softbody::v1::TOOL_MODE_POKE;
  softbody::v1::ToolShape shape = softbody::v1::TOOL_SHAPE_SPHERE;
  double radius = 0.008;   // [m]
  double half_length = 0;  // capsule [m]
  // MESH: the name of a tool surface the server offers (ListScenesResponse.tool_meshes).
  std::string tool_mesh;
  // Contact stiffness a desktop device can render stably at 1 kHz (a Geomagic Touch is rated
  // about 1.3 kN/m); the server's default (2e4 N/m) suits scripted tools, not hands. With
  // constraint contact it is the stiffness of the spring that couples the device to the tool the
  // contact problem holds out of the body (ToolCommand.coupling_stiffness: virtual coupling).
  double contact_stiffness = 1000;  // [N/m]
  double contact_damping = 2;       // [N s/m]
  double contact_friction = 0;
  // Constraint contact (issue 22): non-penetration and Coulomb friction with
  // `friction_coefficient`, solved in the server's steps and re-solved each tick. AUTO (the
  // default): constraint where the session's step solves it, the penalty spring elsewhere; the
  // server decides per command and the loop renders whichever model its replies carry.
  softbody::v1::ContactModel contact_model = softbody::v1::CONTACT_MODEL_AUTO;
  double friction_coefficient = 0;
  // Constraint contact: how much further than the scene's margin the server looks for surface
  // features the tool may reach before the next reply (ToolCommand.candidate_reach) [m].
  // Negative: automatic, 3 x the tool's recent peak speed (at least 0.05 m/s) x the link's delay
  // (smoothed round trip + 4 deviations), at most 0.1 m. Without it, on a slow link the pen sinks
  // into a surface the stale problem does not hold and the next one pushes it out with energy the
  // hand never put in (bench/RESULTS.md, "Haptics across slow links").
  double candidate_reach = -1;
  // Constraint contact: ask for the contact problem's compliance as float32 upper triangle
  // (ToolCommand.contact_problem_encoding UPPER_FLOAT: ~4x fewer bytes a step, which a slow or
  // lossy link delivers that much sooner); false: all of it as doubles.
  bool compact_contact_problem = true;
  double grab_stiffness = 0, grab_damping = 0;
};

// Device frame to scene frame: scene = offset + scale * device; the device gets
// force_scale * (force on the tool).
struct Workspace {
  Vec3 offset{0, 0, 0};
  double scale = 1;
  double force_scale = 1;
};

struct HapticLoopOptions {
  double rate_hz = 1000;  // 500 to 4000
  // Busy-wait before each tick [s]. Wake-ups from sleep arrive up to ~0.5 ms late on the shared
  // VMs measured (bench/RESULTS.md); spinning the last 0.5 ms costs half a core and keeps the p99
  // period error in microseconds. With SCHED_FIFO 0.15 ms is enough.
  double spin_s = 500e-6;
  ThreadPlacement placement;
  SafetyLimits safety;
  // A new model's force at the tool's pose differs from the old one's: the difference fades in
  // over this long, by at most swap_blend_step per tick, instead of jumping (swap_blend.h; 0:
  // jump).
  double swap_blend_s = 0.02;
  double swap_blend_step = 0.1;  // [N]
  // The body never returns more energy than the hand put in (passivity_controller.h).
  PassivityOptions passivity;
  Workspace workspace;
  ToolSettings tool;
  bool reconnect = true;  // reopen the tool stream after a transient failure
  // The loop stops, with failure() set, when the tool stream has not worked for this long
  // (negative: it keeps trying), or at once on a failure waiting cannot mend (a refused limit).
  double give_up_after_s = -1;
  double duration_s = 0;  // stop after this long (0: until stop() or the device finishes)
};

// The loop's state for overlays and live displays.
struct HapticSnapshot {
  Vec3 tool_position{0, 0, 0};  // scene frame [m]
  Vec3 force{0, 0, 0};          // output, on the tool [N]
  double time_s = 0;
  double loop_rate_hz = 0;   // over the last second
  double round_trip_ms = 0;  // of the newest reply
  double model_age_ms = std::numeric_limits<double>::infinity();
  int contacts = 0;
  bool connected = false;
  std::string link_error;  // why the tool stream went down, while it is
  long ticks = 0;
  long ticks_in_contact = 0;  // so far: ticks whose model had contacts
};

class HapticLoop {
 public:
  HapticLoop(HapticDevice& device, HapticLoopOptions options);
  ~HapticLoop();
  HapticLoop(const HapticLoop&) = delete;
  HapticLoop& operator=(const HapticLoop&) = delete;

  // The session to interact with (before start()). Without it the loop renders zero force.
  void connect(Client& client, const std::string& session_id);
  void start();
  // Stops the thread, writes zero force, closes the stream.
  void stop();
  // Blocks until the loop ends by itself (duration, device finished) or `timeout_s` passes.
  bool wait(double timeout_s);
  bool running() const { return running_.load(); }
  // Why the loop stopped by itself, if it gave up on the server (give_up_after_s).
  std::optional<Error> failure() const;
  // Commands the server rejected (ForceReply.rejected: over a quota, or an invalid pose) and the
  // reason it gave the first time, "" while none was rejected.
  long rejected() const { return rejected_.load(); }
  std::string first_rejection() const;

  void set_tool_mode(softbody::v1::ToolMode mode) { mode_.store(mode); }
  HapticSnapshot snapshot() const;
  // The statistics as JSON (docs/client-cpp.md lists the fields). Call after stop().
  nlohmann::json report() const;
  const std::string& placement() const { return placement_report_; }

 private:
  struct TimedModel {
    codec::CouplingModel model;
    // A constraint-contact tool's contact problem of the same step: re-solved each tick for the
    // tool's position instead of evaluating `model` (codec/tool_contact.h).
    codec::ToolContactModel problem;
    double received_s = 0;
    int contacts = 0;
  };

  void run();
  void tick(double time_s, double dt);
  // The force `m` gives at the tool's pose: its contact problem re-solved (warm-starting the
  // next solve) when it has one.
  static Vec3 model_force(TimedModel& m, const Vec3& position, const Vec3& velocity);
  void open_stream();
  void retire_stream();
  void on_reply(const softbody::v1::ForceReply& reply,
                std::chrono::steady_clock::time_point received);
  // `reach`: its candidate_reach (sent with constraint contact).
  softbody::v1::ToolCommand command(double time_s, const Vec3& position, const Vec3& velocity,
                                    const DeviceState& device, double reach) const;
  // ToolCommand.candidate_reach for this tick; updates the peak speed it follows.
  double candidate_reach(const Vec3& velocity, double dt);
  // Seconds between tool commands: none below a millisecond link, up to kMaxCommandInterval.
  double command_interval() const;
  static constexpr double kMaxCommandInterval = 0.01;
  // The speed a resting hand may start at, for the candidate reach [m/s] (a surgical hand moves
  // at up to ~0.1 m/s; the reach grows with the link's delay, so a local link sees ~0.2 mm).
  static constexpr double kOnsetSpeed = 0.05;
  double seconds(std::chrono::steady_clock::time_point t) const;

  HapticDevice& device_;
  HapticLoopOptions options_;
  Client* client_ = nullptr;
  std::string session_id_;
  std::chrono::steady_clock::time_point epoch_;

  // Loop thread only.
  std::unique_ptr<ToolStream> stream_;
  FailureStreak streak_;
  std::string link_error_;
  double next_reconnect_s_ = 0, reconnect_backoff_s_ = 0.1, stream_opened_s_ = 0;
  ForceSafety safety_;
  SwapBlend blend_;
  PassivityController passivity_;
  TimedModel model_;
  bool have_model_ = false;
  std::uint64_t sequence_ = 0;
  Histogram period_, jitter_, model_age_, swap_jump_, watchdog_timeout_;
  long ticks_ = 0, overruns_ = 0, beyond_validity_ = 0, reconnects_ = 0, disconnected_ticks_ = 0;
  long contact_ticks_ = 0;  // ticks whose model had contacts
  long problem_ticks_ = 0;  // ticks rendered by re-solving a contact problem
  // The contact model of the last reply that named one (v1::ContactModel; 0: none yet).
  std::atomic<int> replied_contact_model_{0};
  codec::ToolContactModel last_problem_;  // the newest received (reply thread)
  double largest_force_ = 0;              // [N], output
  double peak_speed_ = 0;                 // [m/s], decaying with a 1 s time constant
  double largest_reach_ = 0;              // [m]: the largest candidate reach sent
  long commands_sent_ = 0, commands_coalesced_ = 0, replies_ = 0, replies_superseded_ = 0;
  double rate_window_start_ = 0;
  long rate_window_ticks_ = 0;
  double loop_rate_ = 0;

  // Reply threads -> loop thread.
  TripleBuffer<TimedModel> models_;
  mutable std::mutex reply_mutex_;
  Histogram round_trip_, server_time_;                // guarded by reply_mutex_
  long contact_problems_ = 0;                         // guarded by reply_mutex_
  double contact_problem_bytes_ = 0;                  // guarded by reply_mutex_: their sum
  double last_round_trip_ms_ = 0;                     // guarded by reply_mutex_
  double smoothed_rtt_s_ = -1, rtt_deviation_s_ = 0;  // guarded by reply_mutex_ (TCP's estimator)
  std::atomic<double> link_delay_s_{0};               // smoothed round trip + 4 deviations
  double peak_rtt_s_ = 0, peak_rtt_at_s_ = -1;        // guarded by reply_mutex_
  std::atomic<double> watchdog_delay_s_{0};           // max(link delay, decaying peak round trip)
  double next_command_s_ = 0;                         // the next command waits until then
  std::atomic<long> rejected_{0};
  std::string first_rejection_;  // guarded by reply_mutex_

  mutable std::mutex snapshot_mutex_;
  HapticSnapshot snapshot_;       // guarded by snapshot_mutex_ (the loop only try_locks)
  std::optional<Error> failure_;  // guarded by snapshot_mutex_

  std::atomic<softbody::v1::ToolMode> mode_;
  std::atomic<bool> stop_{false}, running_{false};
  std::string placement_report_;
  std::thread thread_;
};

}  // namespace softbody::client
