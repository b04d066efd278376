#include "server/sessions/tool.h"

#include <algorithm>

#include "server/sessions/session.h"

namespace softbody::server {
namespace {

codec::Vec3d to_array(const Vec3& v) {
  return {v.x(), v.y(), v.z()};
}

codec::Mat3d to_array(const Mat3& m) {
  codec::Mat3d out;
  for (int r = 0; r < 3; ++r)
    for (int c = 0; c < 3; ++c) out[static_cast<size_t>(3 * r + c)] = m(r, c);
  return out;
}

}  // namespace

bool same_tool_configuration(const ToolInput& a, const ToolInput& b) {
  return a.mode == b.mode && a.shape == b.shape && a.surface == b.surface && a.radius == b.radius &&
         a.half_length == b.half_length && a.orientation.coeffs() == b.orientation.coeffs() &&
         a.contact.stiffness == b.contact.stiffness && a.contact.damping == b.contact.damping &&
         a.contact.friction == b.contact.friction && a.contact.model == b.contact.model &&
         a.contact_auto == b.contact_auto && a.contact.mu == b.contact.mu &&
         a.grab_stiffness == b.grab_stiffness && a.grab_damping == b.grab_damping &&
         a.requested_grab_vertex == b.requested_grab_vertex;
}

void resolve_contact_model(ToolInput& input, bool step_solves_constraint) {
  if (input.mode == ToolMode::kPoke && input.contact_auto)
    input.contact.model =
        step_solves_constraint ? ContactModel::kConstraint : ContactModel::kPenalty;
}

Obstacle tool_obstacle(const ToolInput& input) {
  Obstacle o;
  o.shape = input.shape;
  o.radius = input.radius;
  o.half_length = input.half_length;
  o.axis = input.orientation * Vec3::UnitX();
  if (input.shape == ObstacleShape::kMesh) {
    o.surface = input.surface;
    o.rotation = input.orientation.toRotationMatrix();
  }
  o.contact = input.contact;
  o.trajectory = make_sampled_trajectory(input.position, input.velocity);
  return o;
}

codec::CouplingModel build_coupling_model(const ToolInput& input, Index grab_vertex,
                                          const PublishedState& state, double validity_cap,
                                          const ConstraintToolStep& stepped, int& contacts) {
  ToolForce f;
  Vec3 reference = input.position;
  switch (input.mode) {
    case ToolMode::kPoke:
      if (input.contact.model == ContactModel::kConstraint) {
        const auto i = static_cast<size_t>(stepped.obstacle);
        const StepStats& s = state.stats;
        if (stepped.obstacle >= 0 && i < s.obstacle_forces.size()) {
          f.force = s.obstacle_forces[i];
          f.dforce_dx = s.obstacle_stiffness[i];
          f.contacts = s.obstacle_contacts[i];
        }
        reference = stepped.position;
        // The contact set holds while the tool stays within a fraction of its size.
        f.validity_radius = 0.25 * input.radius;
        break;
      }
      f = poke_force(tool_obstacle(input), input.position, input.velocity, state.p, state.v, {});
      break;
    case ToolMode::kGrab:
      if (grab_vertex >= 0) {
        f = grab_force(grab_vertex, input.grab_stiffness, input.grab_damping, input.position,
                       input.velocity, state.p, state.v);
      }
      break;
    case ToolMode::kIdle:
      break;
  }
  codec::CouplingModel m;
  m.reference_position = to_array(reference);
  m.reference_velocity = to_array(input.velocity);
  m.force = to_array(f.force);
  m.dforce_dposition = to_array(f.dforce_dx);
  m.dforce_dvelocity = to_array(f.dforce_dv);
  m.step = state.step;
  m.validity_radius = std::min(f.validity_radius, validity_cap);
  contacts = f.contacts;
  return m;
}

codec::ToolContactModel tool_contact_problem(const ToolInput& input, const PublishedState& state,
                                             const ConstraintToolStep& stepped) {
  const auto i = static_cast<size_t>(stepped.obstacle);
  if (input.mode != ToolMode::kPoke || input.contact.model != ContactModel::kConstraint ||
      stepped.obstacle < 0 || i >= state.stats.obstacle_models.size())
    return {};
  codec::ToolContactModel model = state.stats.obstacle_models[i];
  model.step = state.step;
  return model;
}

}  // namespace softbody::server
