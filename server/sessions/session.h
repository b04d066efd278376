// One simulation session: a scene's model and state, stepped in real time by the scheduler's
// workers; its subscribers (state streams) and tools (Interact streams). gRPC threads never step:
// they read the immutable state published after each step and evaluate coupling models.
#pragma once

#include <atomic>
#include <chrono>
#include <deque>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "engine/io/mesh_io.h"
#include "engine/scene/scene.h"
#include "engine/scene/settings_table.h"
#include "engine/sim/integrator.h"
#include "server/auth/access_policy.h"
#include "server/metrics.h"
#include "server/sessions/step_cost.h"
#include "server/sessions/subscriber.h"
#include "server/sessions/tool.h"

namespace softbody::server {

using Clock = std::chrono::steady_clock;

// The body after a step, shared read-only by subscribers and tool replies.
struct PublishedState {
  long step = 0;
  double t = 0;
  Vec3Array p, v;
  StepStats stats;
  double real_time_factor = 0;
  double effective_tolerance = 0;  // the solve tolerance in force (loosened under load)
  int max_iterations = 0;          // the configured cap (reported for old clients)
  long total_rollbacks = 0;
  Clock::time_point finished;
  // The model stepped (its obstacles are what clients draw; a settings change replaces it).
  std::shared_ptr<const SimulationModel> model;
  // Each of model->obstacles at t, when any of them moves (obstacle_moves); empty otherwise.
  std::vector<ObstaclePose> obstacle_poses;
};

// An uploaded mesh as the client sent it (kept for snapshots).
struct UploadedMeshData {
  MeshFormat format = MeshFormat::kGmsh;
  std::string content, elements, file_name;
  std::string scene_json;
};

// Where a session's scene came from: enough to build it again (settings changes, snapshots).
struct SessionSource {
  std::string owner;  // the subject of the caller that created it ("" without authentication)
  SessionAudience audience;  // who besides the owner may use it
  std::string scene_name;
  nlohmann::json document;  // with every settings change applied
  std::string base_dir;     // relative mesh paths resolve here
  std::optional<UploadedMeshData> uploaded;
  std::shared_ptr<const TetMesh> uploaded_mesh;  // parsed and validated
  std::string uploaded_key;
};

// Session ids: letters, digits, '-' and '_' only, 1-64 characters (they are file names in the
// snapshot store).
bool valid_session_id(const std::string& id);

struct SessionLimits {
  int max_subscribers = 32;
  int max_tools = 8;
  // Under load a session loosens its solve tolerance tenfold per late step, never beyond this
  // (the accuracy floor); it tightens back to the scene's tolerance when on time.
  double loosest_tolerance = 1e-3;
};

// Live settings to change, each judged by the settings table (engine/scene/settings_table.h) by
// the caller; the others keep their values. Numbers are in SI units.
struct SettingsUpdate {
  struct Value {
    const SettingSpec* spec;
    nlohmann::json value;
  };
  std::vector<Value> values;
};

struct SessionSnapshot {
  std::string scene_name;
  nlohmann::json document;
  std::optional<UploadedMeshData> uploaded;
  SimulationState state;
  double effective_tolerance = 0;
  int on_time_steps = 0;
};

class Session {
 public:
  Session(std::string id, std::string label, Scene scene, SessionSource source,
          SessionLimits limits, BodyProvider bodies, Metrics& metrics);
  ~Session();

  const std::string& id() const { return id_; }
  const std::string& label() const { return label_; }
  const std::string& scene_name() const { return source_.scene_name; }
  const std::string& owner() const { return source_.owner; }
  const SessionAudience& audience() const { return source_.audience; }
  Clock::time_point created() const { return created_; }

  // --- stepping (scheduler workers) ---
  // One step now; `lag_s` is how late it started against its schedule (drives degradation). A
  // scheduled step is skipped when the session was paused meanwhile.
  void step(double lag_s, bool scheduled);
  // Stops real-time stepping; when it returns no scheduled step is running or will run.
  void pause_stepping();
  double dt() const;
  std::atomic<bool> running{true};  // stepped by the scheduler in real time
  // Saved for another host (drain, migration) and not yet handed off: the state is final, so
  // requests that would change it are refused (UNAVAILABLE, retried) rather than lost.
  std::atomic<bool> moving{false};
  std::atomic<long> schedule_generation{0};  // bumped to invalidate queued schedule entries

  // --- control (gRPC threads) ---
  void reset();
  void update_settings(const SettingsUpdate& update);  // throws ApiError
  SessionSnapshot snapshot();
  // Throws ApiError on mismatch; effective_tolerance > 0 restores a degraded accuracy too; the
  // solver state makes the continuation bit-identical (an empty one: equal to the tolerance).
  void restore(const SessionSnapshot& snapshot);
  void reset_real_time_window();

  // --- readers ---
  std::shared_ptr<const PublishedState> latest() const;
  // The mesh as simulated; settings changes keep it (only the material of the body changes).
  const TetMesh& mesh() const { return mesh_body_->mesh; }
  const MeshTopology& topology() const { return *mesh_body_->topology; }
  // What the user should hear about the mesh (SceneBody::warnings: slivers).
  const std::vector<std::string>& mesh_warnings() const { return mesh_body_->warnings; }
  IntegratorOptions options() const;
  // Whether this session's steps solve constraint contact now (steps_constraint_contact of its
  // options): what a tool's CONTACT_MODEL_AUTO becomes.
  bool steps_constraint_contact() const;
  nlohmann::json document() const;  // the scene with every settings change applied
  // Options, material and document from one settings change (read apart, a concurrent
  // UpdateSettings could mix them).
  struct Settings {
    IntegratorOptions options;
    Material material;
    nlohmann::json document;
  };
  Settings settings() const;
  double effective_tolerance() const { return effective_tolerance_.load(); }
  // Cores the session's real-time stepping takes (its CPU seconds per simulated second over its
  // recent steps, StepCostMeter); 0 while paused, negative until measured.
  double cpu_load() const;
  BoundingBox rest_bounds() const { return rest_bounds_; }

  // --- subscribers and tools ---
  std::shared_ptr<Subscriber> subscribe();  // throws ApiError when full
  void unsubscribe(const std::shared_ptr<Subscriber>& s);
  int num_subscribers() const;
  std::shared_ptr<Tool> attach_tool();  // throws ApiError when full
  void detach_tool(const std::shared_ptr<Tool>& tool);
  int num_tools() const;
  // Answers a tool command between steps: the force at the command's pose from the coupling
  // model, rebuilt against the newest state when stale. Also makes `input` the tool's pose for
  // the next step.
  // A constraint-contact tool's force is its contact problem re-solved at the pose; `problem`,
  // when given, gets that problem if this stream has not had this step's yet (else it is emptied).
  codec::Vec3d answer(Tool& tool, const ToolInput& input, int& contacts,
                      codec::CouplingModel& model, codec::ToolContactModel* problem = nullptr);

  // Closes every stream of the session with `status`.
  void close_streams(const grpc::Status& status);

  // --- idleness ---
  void touch() { last_activity_ns_.store(Clock::now().time_since_epoch().count()); }
  double idle_seconds() const;
  double idle_timeout_s = 0;

 private:
  void publish(const SimulationState& state, const StepStats& stats, double rtf);
  StepInputs tool_inputs();
  void rebuild_coupling_models(const PublishedState& state);
  void adapt_tolerance(double lag_s);
  double real_time_factor(Clock::time_point now, double t);

  // Hands the heap a session freed back to the system once it is gone: glibc keeps freed arena
  // pages otherwise (RSS stayed several MB above its start after churn; bench/RESULTS.md, "Memory
  // after churn"). Declared first, so it runs after every other member is destroyed.
  struct ReturnsFreedMemory {
    ~ReturnsFreedMemory();
  } returns_freed_memory_;

  const std::string id_, label_;
  const Clock::time_point created_ = Clock::now();
  SessionLimits limits_;
  BodyProvider bodies_;
  Metrics& metrics_;
  const std::shared_ptr<const SceneBody> mesh_body_;  // the body the session was created with
  BoundingBox rest_bounds_;
  double validity_cap_ = 1;

  // Copies of the settings for readers (gRPC threads must not wait for a step to read them).
  mutable std::mutex settings_mutex_;
  IntegratorOptions options_;
  Material material_;  // the body's, in SI units (E follows a constant-Q fit)
  nlohmann::json document_;

  mutable std::mutex state_mutex_;  // model, integrator, state, source: held while stepping
  SessionSource source_;
  std::shared_ptr<const SimulationModel> model_;
  std::unique_ptr<Integrator> integrator_;
  SimulationState state_;
  long total_rollbacks_ = 0;
  std::deque<std::pair<Clock::time_point, double>> rtf_window_;
  int on_time_steps_ = 0;
  std::atomic<double> effective_tolerance_{0};
  StepCostMeter cost_;

  mutable std::mutex published_mutex_;
  std::shared_ptr<const PublishedState> published_;

  mutable std::mutex streams_mutex_;
  std::vector<std::shared_ptr<Subscriber>> subscribers_;
  std::vector<std::shared_ptr<Tool>> tools_;
  long next_tool_ = 0;

  std::atomic<Clock::rep> last_activity_ns_{Clock::now().time_since_epoch().count()};
};

}  // namespace softbody::server
