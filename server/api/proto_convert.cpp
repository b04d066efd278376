#include "server/api/proto_convert.h"

#include <cmath>

#include "codec/compact_compliance.h"
#include "server/api_error.h"

namespace softbody::server {
namespace {

bool finite(const v1::Vec3& v) {
  return std::isfinite(v.x()) && std::isfinite(v.y()) && std::isfinite(v.z());
}

Vec3 from_proto(const v1::Vec3& v) {
  return {v.x(), v.y(), v.z()};
}

// A positive, finite parameter with a default for 0; an error message otherwise.
std::string positive_or_default(double value, double fallback, double max, const char* field,
                                double& out) {
  if (value == 0) {
    out = fallback;
    return {};
  }
  if (!std::isfinite(value) || value < 0 || value > max)
    return std::string(field) + ": must be 0 (default) or in (0, " + std::to_string(max) + "]";
  out = value;
  return {};
}

}  // namespace

void to_proto(const Vec3& v, v1::Vec3& out) {
  out.set_x(v.x());
  out.set_y(v.y());
  out.set_z(v.z());
}

void to_proto(const codec::Vec3d& v, v1::Vec3& out) {
  out.set_x(v[0]);
  out.set_y(v[1]);
  out.set_z(v[2]);
}

void to_proto(const codec::Mat3d& m, v1::Mat3& out) {
  out.mutable_values()->Assign(m.begin(), m.end());
}

void to_proto(const BoundingBox& box, v1::BoundingBox& out) {
  to_proto(box.min, *out.mutable_min());
  to_proto(box.max, *out.mutable_max());
}

void to_proto(const PublishedState& state, v1::StepStatistics& out) {
  const StepStats& s = state.stats;
  out.set_step(state.step);
  out.set_sim_time(state.t);
  out.set_step_ms(s.step_ms);
  out.set_iterations(s.iterations);
  out.set_residual(s.residual);
  out.set_real_time_factor(state.real_time_factor);
  out.set_rollbacks(s.rolled_back);
  out.set_failed(s.failed);
  out.set_contacts(s.contacts);
  out.set_max_speed(s.max_speed);
  out.set_iteration_cap(state.max_iterations);
  out.set_total_rollbacks(state.total_rollbacks);
  out.set_tolerance(s.tolerance);
  out.set_tolerance_met(s.converged);
  out.set_solver_method(s.solver_method);
  out.set_factorizations(s.factorizations);
  out.set_factor_ms(s.factor_ms);
  out.set_factor_nonzeros(s.factor_nonzeros);
  out.set_factor_fill(s.factor_fill);
  out.set_newton_iterations(s.newton_iterations);
  out.set_jacobian_updates(s.jacobian_updates);
  out.set_line_search_backtracks(s.line_search_backtracks);
  out.set_newton_fallback(s.newton_fallback);
  out.set_newton_round_off(s.newton_round_off);
  out.set_bdf_order(s.bdf_order);
  out.set_inverted_elements(s.inverted_elements);
  out.set_inverted_before_alleviation(s.inverted_before_alleviation);
  out.set_alleviation_sweeps(s.alleviation_sweeps);
  out.set_constraint_contacts(s.constraint_contacts);
  out.set_active_contacts(s.active_contacts);
  out.set_max_penetration(s.max_penetration);
  out.set_pgs_residual(s.pgs_residual);
  out.set_pgs_iterations(s.pgs_iterations);
  out.set_contact_ms(s.contact_ms);
}

void to_proto(const codec::CouplingModel& model, v1::CouplingModel& out) {
  to_proto(model.reference_position, *out.mutable_reference_position());
  to_proto(model.reference_velocity, *out.mutable_reference_velocity());
  to_proto(model.force, *out.mutable_force());
  to_proto(model.dforce_dposition, *out.mutable_dforce_dposition());
  to_proto(model.dforce_dvelocity, *out.mutable_dforce_dvelocity());
  out.set_step(model.step);
  out.set_validity_radius(model.validity_radius);
}

void to_proto(const codec::ToolContactModel& model, v1::ContactProblemEncoding encoding,
              v1::ContactProblemModel& out) {
  to_proto(model.reference_position, *out.mutable_reference_position());
  out.set_contacts(model.problem.contacts);
  if (encoding == v1::CONTACT_PROBLEM_ENCODING_UPPER_FLOAT) {
    const std::vector<float> upper =
        codec::encode_compliance_upper(model.problem.w, 3 * model.problem.contacts);
    out.mutable_compliance_upper()->Add(upper.begin(), upper.end());
  } else {
    out.mutable_compliance()->Add(model.problem.w.begin(), model.problem.w.end());
  }
  out.mutable_free_motion()->Add(model.problem.delta_free.begin(), model.problem.delta_free.end());
  out.mutable_friction()->Add(model.problem.mu.begin(), model.problem.mu.end());
  out.mutable_frames()->Add(model.frames.begin(), model.frames.end());
  out.mutable_forces()->Add(model.lambda.begin(), model.lambda.end());
  out.set_step(model.step);
}

std::string tool_input_from_proto(const v1::ToolCommand& c, Index num_vertices,
                                  const ToolMeshes& tool_meshes, ToolInput& out) {
  ToolInput in;
  if (!finite(c.pose().position())) return "pose.position: not finite";
  if (!finite(c.velocity())) return "velocity: not finite";
  in.position = from_proto(c.pose().position());
  in.velocity = from_proto(c.velocity());
  if (in.position.norm() > 1e3) return "pose.position: farther than 1000 m from the origin";
  if (in.velocity.norm() > 1e3) return "velocity: faster than 1000 m/s";
  const v1::Quaternion& q = c.pose().orientation();
  if (!std::isfinite(q.w()) || !std::isfinite(q.x()) || !std::isfinite(q.y()) ||
      !std::isfinite(q.z()))
    return "pose.orientation: not finite";
  Eigen::Quaterniond orientation(q.w(), q.x(), q.y(), q.z());
  if (orientation.norm() == 0) orientation = Eigen::Quaterniond::Identity();
  if (orientation.norm() < 1e-6) return "pose.orientation: not a rotation (norm ~ 0)";
  in.orientation = orientation.normalized();
  switch (c.shape()) {
    case v1::TOOL_SHAPE_UNSPECIFIED:
    case v1::TOOL_SHAPE_SPHERE:
      in.shape = ObstacleShape::kSphere;
      break;
    case v1::TOOL_SHAPE_CAPSULE:
      in.shape = ObstacleShape::kCapsule;
      break;
    case v1::TOOL_SHAPE_MESH:
      in.shape = ObstacleShape::kMesh;
      in.surface = tool_meshes.find(c.tool_mesh());
      if (!in.surface)
        return "tool_mesh: no tool surface '" + c.tool_mesh() +
               "' on this server (available: " + tool_meshes.names() + ")";
      break;
    default:
      return "shape: unknown tool shape " + std::to_string(c.shape());
  }
  switch (c.mode()) {
    case v1::TOOL_MODE_UNSPECIFIED:
    case v1::TOOL_MODE_POKE:
      in.mode = ToolMode::kPoke;
      break;
    case v1::TOOL_MODE_GRAB:
      in.mode = ToolMode::kGrab;
      break;
    case v1::TOOL_MODE_IDLE:
      in.mode = ToolMode::kIdle;
      break;
    default:
      return "mode: unknown tool mode " + std::to_string(c.mode());
  }
  if (c.radius() != 0 && !(c.radius() >= 1e-4 && c.radius() <= 1))
    return "radius: must be 0 (1 cm) or in [1e-4, 1] m";
  in.radius = c.radius() == 0 ? 0.01 : c.radius();
  if (!(c.half_length() >= 0 && c.half_length() <= 1)) return "half_length: must lie in [0, 1] m";
  in.half_length = c.half_length();
  std::string problem;
  if (!(problem =
            positive_or_default(c.grab_stiffness(), 200, 1e7, "grab_stiffness", in.grab_stiffness))
           .empty() ||
      !(problem = positive_or_default(c.grab_damping(), 2, 1e5, "grab_damping", in.grab_damping))
           .empty() ||
      !(problem = positive_or_default(c.contact_stiffness(), 2e4, 1e8, "contact_stiffness",
                                      in.contact.stiffness))
           .empty() ||
      !(problem = positive_or_default(c.contact_damping(), 50, 1e6, "contact_damping",
                                      in.contact.damping))
           .empty() ||
      !(problem = positive_or_default(c.contact_friction(), 1e4, 1e9, "contact_friction",
                                      in.contact.friction))
           .empty()) {
    return problem;
  }
  switch (c.contact_model()) {
    case v1::CONTACT_MODEL_UNSPECIFIED:
    case v1::CONTACT_MODEL_PENALTY:
      in.contact.model = ContactModel::kPenalty;
      break;
    case v1::CONTACT_MODEL_CONSTRAINT:
      in.contact.model = ContactModel::kConstraint;
      break;
    case v1::CONTACT_MODEL_AUTO:  // resolved against the session (resolve_contact_model)
      in.contact.model = ContactModel::kPenalty;
      in.contact_auto = true;
      break;
    default:
      return "contact_model: unknown contact model " + std::to_string(c.contact_model());
  }
  if (!(c.friction_coefficient() >= 0 && c.friction_coefficient() <= 10))
    return "friction_coefficient: must lie in [0, 10]";
  in.contact.mu = c.friction_coefficient();
  if (c.coupling_stiffness() != 0 &&
      !(c.coupling_stiffness() >= 10 && c.coupling_stiffness() <= 1e7))
    return "coupling_stiffness: must be 0 (rigid) or in [10, 1e7] N/m";
  in.contact.coupling_stiffness = c.coupling_stiffness();
  if (!(c.candidate_reach() >= 0 && c.candidate_reach() <= 0.1))
    return "candidate_reach: must lie in [0, 0.1] m";
  in.contact.reach = c.candidate_reach();
  if (!v1::ContactProblemEncoding_IsValid(c.contact_problem_encoding()))
    return "contact_problem_encoding: unknown encoding " +
           std::to_string(c.contact_problem_encoding());
  if (c.has_grab_vertex() && (c.grab_vertex() < 0 || c.grab_vertex() >= num_vertices))
    return "grab_vertex: must be unset (nearest) or a vertex id below " +
           std::to_string(num_vertices);
  in.requested_grab_vertex = c.has_grab_vertex() ? c.grab_vertex() : -1;
  in.buttons = c.buttons();
  out = in;
  return {};
}

}  // namespace softbody::server
