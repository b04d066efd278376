// A tool attached to a session by one Interact stream: its newest command (which drives the next
// step) and its coupling model (rebuilt after every step, and between steps when a command leaves
// the model's validity radius).
#pragma once

#include <grpcpp/support/status.h>

#include <Eigen/Geometry>
#include <functional>
#include <mutex>
#include <string>

#include "codec/coupling_model.h"
#include "codec/tool_contact.h"
#include "engine/sim/simulation.h"
#include "engine/sim/tool_force.h"

namespace softbody::server {

struct PublishedState;

enum class ToolMode { kPoke, kGrab, kIdle };

// A validated tool command (SI units).
struct ToolInput {
  ToolMode mode = ToolMode::kIdle;
  ObstacleShape shape = ObstacleShape::kSphere;
  Vec3 position = Vec3::Zero();
  Vec3 velocity = Vec3::Zero();
  Eigen::Quaterniond orientation = Eigen::Quaterniond::Identity();
  double radius = 0.01;
  double half_length = 0;
  std::shared_ptr<const RigidSurface> surface;  // kMesh's, from the server's ToolMeshes
  ContactParameters contact{.stiffness = 2e4, .damping = 50, .friction = 1e4};
  // CONTACT_MODEL_AUTO: `contact.model` is whatever the session's step solves now, set by
  // resolve_contact_model for each command and again for each step (a live settings change).
  bool contact_auto = false;
  double grab_stiffness = 200;
  double grab_damping = 2;
  int requested_grab_vertex = -1;  // -1: the nearest surface vertex
  std::uint32_t buttons = 0;
};

// Whether two inputs differ in anything but position, velocity and buttons (then a coupling model
// built for one is not valid for the other).
bool same_tool_configuration(const ToolInput& a, const ToolInput& b);

// Sets an auto poke's contact model for a session whose step does (`step_solves_constraint`) or
// does not solve constraint contact; other inputs are left as they are.
void resolve_contact_model(ToolInput& input, bool step_solves_constraint);

// The rigid obstacle a poking tool is.
Obstacle tool_obstacle(const ToolInput& input);

struct ConstraintToolStep {
  int obstacle = -1;  // index into StepStats::obstacle_forces; -1: not stepped as constraint
  Vec3 position = Vec3::Zero();
};

class Tool {
 public:
  explicit Tool(std::string id) : id_(std::move(id)) {}
  const std::string& id() const { return id_; }

  std::mutex mutex;  // guards everything below
  bool has_input = false;
  ToolInput input;
  Index grab_vertex = -1;  // resolved when a grab starts
  bool has_model = false;
  ToolInput model_input;  // the input the model was built for
  codec::CouplingModel model;
  int contacts = 0;
  // A constraint-contact poke: the tool's place among the step's constraint obstacles and its
  // position there, for the step being computed and for the published one (whose contact force
  // and stiffness the coupling model is made of).
  ConstraintToolStep stepping, published;
  // Its contact problem from the published step (re-solved for each command's pose), and the step
  // of the last one sent on the stream (a reply carries it once per step).
  codec::ToolContactModel contact_problem;
  std::int64_t problem_sent_step = -1;
  // Ends the tool's stream (set by the stream; called on session deletion and shutdown).
  std::function<void(const grpc::Status&)> close;

 private:
  std::string id_;
};

// The tool force for `input` against a frozen body state, as a coupling model around the input's
// position and velocity. `validity_cap` bounds the validity radius (e.g. the body's size). A
// constraint-contact poke's model is the published step's contact force on the tool with the
// contact stiffness its compliance gives (engine ContactResult::obstacle_stiffness), around the
// position it was stepped at (`stepped`).
codec::CouplingModel build_coupling_model(const ToolInput& input, Index grab_vertex,
                                          const PublishedState& state, double validity_cap,
                                          const ConstraintToolStep& stepped, int& contacts);

// A constraint-contact poke's contact problem from the published step (codec/tool_contact.h),
// stamped with the step; empty for other tools or without contacts.
codec::ToolContactModel tool_contact_problem(const ToolInput& input, const PublishedState& state,
                                             const ConstraintToolStep& stepped);

}  // namespace softbody::server
