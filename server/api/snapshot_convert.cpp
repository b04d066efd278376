#include "server/api/snapshot_convert.h"

#include <cmath>

#include "engine/sim/stages/bdf_stability.h"
#include "server/api/proto_convert.h"
#include "server/api_error.h"

namespace softbody::server {
namespace {

void to_proto(const SimulationState::History::GrowthWatch& watch, v1::BdfGrowthWatch& out) {
  out.set_window_sum(watch.window_sum);
  out.set_last_window_sum(watch.last_window_sum);
  out.set_growth(watch.growth);
  out.set_window_steps(watch.window_steps);
  out.set_growing_windows(watch.growing_windows);
}

SimulationState::History::GrowthWatch watch_from(const v1::BdfGrowthWatch& in,
                                                 const GrowthRule& rule, const std::string& field) {
  const bool sums_ok = std::isfinite(in.window_sum()) && in.window_sum() >= 0 &&
                       std::isfinite(in.last_window_sum()) && in.last_window_sum() >= 0 &&
                       std::isfinite(in.growth()) && (in.growth() >= 1 || in.growth() == 0);
  const bool counts_ok =
      in.window_steps() >= 0 && in.window_steps() < rule.window_steps && in.growing_windows() >= 0;
  if (!sums_ok || !counts_ok)
    invalid_argument(
        field, "sums must be finite and >= 0, growth >= 1 (or 0: unset), window_steps in [0, " +
                   std::to_string(rule.window_steps) + "), growing_windows >= 0");
  // growth 0: the field unset (a client-built watch), which is 1.
  return {in.window_sum(), in.last_window_sum(), in.growth() == 0 ? 1 : in.growth(),
          in.window_steps(), in.growing_windows()};
}

using Values = google::protobuf::RepeatedField<double>;

void add_vec3s(const Vec3Array& vectors, Values& out) {
  for (const Vec3& x : vectors) out.Add(x.data(), x.data() + 3);
}

// `n` vectors from values[offset...] (3 each); a non-finite one is refused naming `field`.
Vec3Array vec3s_from(const Values& values, size_t offset, size_t n, const char* field) {
  Vec3Array out(n);
  for (size_t i = 0; i < n; ++i) {
    for (int c = 0; c < 3; ++c) out[i][c] = values.Get(static_cast<int>(offset + 3 * i) + c);
    if (!out[i].allFinite()) invalid_argument(field, "holds a non-finite value");
  }
  return out;
}

void to_proto(const StepSolverState& s, v1::SolverState& out) {
  if (s.factored) {
    out.mutable_factored_matrix()->Add(s.factored->values.begin(), s.factored->values.end());
    for (const Mat3& d : s.factored->diagonal)
      out.mutable_factored_diagonal()->Add(d.data(), d.data() + 9);
  }
  out.set_flops_since_factor(s.flops_since_factor);
  out.set_solves_since_factor(s.solves_since_factor);
  out.set_refactor_due(s.refactor_due);
  out.set_factorizations(s.factorizations);
}

StepSolverState solver_state_from_proto(const v1::SolverState& in, size_t num_vertices) {
  const std::string field = "snapshot.solver_state";
  StepSolverState s;
  if (in.factored_diagonal_size() != 0 &&
      static_cast<size_t>(in.factored_diagonal_size()) != 9 * num_vertices)
    invalid_argument(field + ".factored_diagonal",
                     "needs 9 values per vertex (" + std::to_string(9 * num_vertices) + ")");
  if ((in.factored_matrix_size() == 0) != (in.factored_diagonal_size() == 0))
    invalid_argument(field, "factored_matrix and factored_diagonal go together");
  for (double v : in.factored_matrix())
    if (!std::isfinite(v)) invalid_argument(field + ".factored_matrix", "is not finite");
  if (in.factored_matrix_size() != 0) {
    auto factored = std::make_shared<FactoredMatrix>();
    factored->values.assign(in.factored_matrix().begin(), in.factored_matrix().end());
    factored->diagonal.resize(static_cast<size_t>(in.factored_diagonal_size()) / 9);
    for (size_t v = 0; v < factored->diagonal.size(); ++v)
      factored->diagonal[v] = Eigen::Map<const Mat3>(in.factored_diagonal().data() + 9 * v);
    s.factored = std::move(factored);
  }
  if (!std::isfinite(in.flops_since_factor()) || in.flops_since_factor() < 0 ||
      in.solves_since_factor() < 0 || in.factorizations() < 0)
    invalid_argument(field, "counts must be finite and >= 0");
  s.flops_since_factor = in.flops_since_factor();
  s.solves_since_factor = in.solves_since_factor();
  s.refactor_due = in.refactor_due();
  s.factorizations = in.factorizations();
  return s;
}

}  // namespace

void to_proto(const SessionSnapshot& snap, v1::Snapshot& out) {
  out.set_format_version(1);
  out.set_scene_name(snap.scene_name);
  out.set_scene_json(snap.document.dump());
  if (snap.uploaded) {
    v1::UploadedMesh& u = *out.mutable_uploaded_mesh();
    const UploadedMeshData& d = *snap.uploaded;
    static constexpr v1::MeshFormat kFormats[] = {v1::MESH_FORMAT_GMSH, v1::MESH_FORMAT_MEDIT,
                                                  v1::MESH_FORMAT_TETGEN,
                                                  v1::MESH_FORMAT_VTK_LEGACY, v1::MESH_FORMAT_VTU};
    u.set_format(kFormats[static_cast<int>(d.format)]);
    u.set_content(d.content);
    u.set_tetgen_elements(d.elements);
    u.set_file_name(d.file_name);
    u.set_scene_json(d.scene_json);
  }
  out.set_step(snap.state.step);
  out.set_sim_time(snap.state.t);
  add_vec3s(snap.state.p, *out.mutable_positions());
  add_vec3s(snap.state.v, *out.mutable_velocities());
  out.set_effective_tolerance(snap.effective_tolerance);
  to_proto(snap.state.solver, *out.mutable_solver_state());
  out.mutable_material_memory()->Add(snap.state.material_memory.begin(),
                                     snap.state.material_memory.end());
  for (const SimulationState::ContactMemory& c : snap.state.contact_memory) {
    v1::ContactMemory& m = *out.add_contact_memory();
    m.set_obstacle(c.obstacle);
    for (Index v : c.vertices)
      if (v >= 0) m.add_vertices(v);
    to_proto(c.force, *m.mutable_force());
  }
  const SimulationState::History& history = snap.state.history;
  for (size_t k = 0; k < history.p.size(); ++k) {
    add_vec3s(history.p[k], *out.mutable_history_positions());
    add_vec3s(history.v[k], *out.mutable_history_velocities());
  }
  out.set_history_dt(history.dt);
  out.set_history_time(history.t);
  const SimulationState::History::OrderLimit& limit = history.order_limit;
  v1::BdfOrderLimit& limit_out = *out.mutable_history_order_limit();
  to_proto(limit.fast, *limit_out.mutable_fast());
  to_proto(limit.slow, *limit_out.mutable_slow());
  limit_out.set_reduced_steps(limit.reduced_steps);
  limit_out.set_reductions(limit.reductions);
  const SimulationState::FreeMotion& free_motion = snap.state.free_motion;
  add_vec3s(free_motion.v, *out.mutable_free_motion_velocities());
  out.set_free_motion_dt(free_motion.dt);
  out.set_free_motion_time(free_motion.t);
  if (const auto& confirmed = snap.state.confirmed_factor) {
    add_vec3s(confirmed->start, *out.mutable_confirmed_factor_start());
    add_vec3s(confirmed->free, *out.mutable_confirmed_factor_free());
    out.set_confirmed_factor_h(confirmed->h);
    out.set_confirmed_factor_factorizations(confirmed->factorizations);
  }
  out.set_on_time_steps(snap.on_time_steps);
}

SessionSnapshot snapshot_state_from_proto(const v1::Snapshot& in, size_t n) {
  if (static_cast<size_t>(in.positions_size()) != 3 * n ||
      static_cast<size_t>(in.velocities_size()) != 3 * n) {
    invalid_argument("snapshot.positions",
                     "needs 3 x " + std::to_string(n) + " positions and velocities");
  }
  SessionSnapshot snap;
  SimulationState& state = snap.state;
  state.p.resize(n);
  state.v.resize(n);
  for (size_t i = 0; i < n; ++i) {
    for (int k = 0; k < 3; ++k) {
      state.p[i][k] = in.positions(static_cast<int>(3 * i) + k);
      state.v[i][k] = in.velocities(static_cast<int>(3 * i) + k);
    }
    if (!state.p[i].allFinite() || !state.v[i].allFinite())
      invalid_argument("snapshot.positions", "vertex " + std::to_string(i) + " is not finite");
  }
  if (!std::isfinite(in.sim_time()) || in.step() < 0)
    invalid_argument("snapshot.step", "step and sim_time must be finite and >= 0");
  state.t = in.sim_time();
  state.step = in.step();
  snap.effective_tolerance = std::isfinite(in.effective_tolerance()) ? in.effective_tolerance() : 0;
  state.solver = solver_state_from_proto(in.solver_state(), n);
  state.material_memory.assign(in.material_memory().begin(), in.material_memory().end());
  for (double q : state.material_memory)
    if (!std::isfinite(q)) invalid_argument("snapshot.material_memory", "holds a non-finite value");
  for (const v1::ContactMemory& m : in.contact_memory()) {
    SimulationState::ContactMemory c;
    c.obstacle = m.obstacle();
    if (m.vertices_size() < 1 || m.vertices_size() > static_cast<int>(c.vertices.size()))
      invalid_argument("snapshot.contact_memory", "a contact has 1 to 4 vertices");
    for (int k = 0; k < m.vertices_size(); ++k) {
      if (m.vertices(k) < 0 || m.vertices(k) >= static_cast<std::int32_t>(n))
        invalid_argument("snapshot.contact_memory", "vertex out of range");
      c.vertices[static_cast<size_t>(k)] = m.vertices(k);
    }
    c.force = Vec3(m.force().x(), m.force().y(), m.force().z());
    if (!c.force.allFinite()) invalid_argument("snapshot.contact_memory", "force is not finite");
    state.contact_memory.push_back(c);
  }
  const size_t per_state = 3 * n;
  const auto history_values = static_cast<size_t>(in.history_positions_size());
  if (history_values % per_state != 0 || history_values > 2 * per_state ||
      in.history_velocities_size() != in.history_positions_size()) {
    invalid_argument("snapshot.history_positions", "needs 0, 1 or 2 states of 3 x " +
                                                       std::to_string(n) +
                                                       " positions, and as many velocities");
  }
  for (size_t k = 0; k < history_values / per_state; ++k) {
    state.history.p.push_back(
        vec3s_from(in.history_positions(), k * per_state, n, "snapshot.history_positions"));
    state.history.v.push_back(
        vec3s_from(in.history_velocities(), k * per_state, n, "snapshot.history_positions"));
  }
  state.history.dt = in.history_dt();
  state.history.t = state.history.p.empty() ? -1 : in.history_time();
  if (in.has_history_order_limit()) {
    const v1::BdfOrderLimit& limit = in.history_order_limit();
    SimulationState::History::OrderLimit& order_limit = state.history.order_limit;
    order_limit.fast = watch_from(limit.fast(), kFastRule, "snapshot.history_order_limit.fast");
    order_limit.slow = watch_from(limit.slow(), kSlowRule, "snapshot.history_order_limit.slow");
    const int longest = reduced_steps_after(kMaxDoublings + 1);
    if (limit.reduced_steps() < 0 || limit.reduced_steps() > longest || limit.reductions() < 0)
      invalid_argument(
          "snapshot.history_order_limit",
          "reduced_steps must lie in [0, " + std::to_string(longest) + "] and reductions be >= 0");
    order_limit.reduced_steps = limit.reduced_steps();
    order_limit.reductions = limit.reductions();
  }
  const auto free_motion_values = static_cast<size_t>(in.free_motion_velocities_size());
  if (free_motion_values != 0 && free_motion_values != per_state)
    invalid_argument("snapshot.free_motion_velocities",
                     "needs 0 or 3 x " + std::to_string(n) + " velocities");
  if (free_motion_values != 0) {
    SimulationState::FreeMotion& free_motion = state.free_motion;
    free_motion.v =
        vec3s_from(in.free_motion_velocities(), 0, n, "snapshot.free_motion_velocities");
    free_motion.dt = in.free_motion_dt();
    free_motion.t = in.free_motion_time();
  }
  const auto confirmed_values = static_cast<size_t>(in.confirmed_factor_start_size());
  if ((confirmed_values != 0 && confirmed_values != per_state) ||
      in.confirmed_factor_free_size() != in.confirmed_factor_start_size())
    invalid_argument("snapshot.confirmed_factor_start",
                     "needs 0 or 3 x " + std::to_string(n) + " positions, and as many free ones");
  if (confirmed_values != 0) {
    if (!(in.confirmed_factor_h() > 0) || !std::isfinite(in.confirmed_factor_h()))
      invalid_argument("snapshot.confirmed_factor_h", "must be finite and > 0");
    auto confirmed = std::make_shared<SimulationState::ConfirmedFactor>();
    confirmed->start =
        vec3s_from(in.confirmed_factor_start(), 0, n, "snapshot.confirmed_factor_start");
    confirmed->free =
        vec3s_from(in.confirmed_factor_free(), 0, n, "snapshot.confirmed_factor_free");
    confirmed->h = in.confirmed_factor_h();
    confirmed->factorizations = in.confirmed_factor_factorizations();
    state.confirmed_factor = std::move(confirmed);
  }
  snap.on_time_steps = in.on_time_steps();
  return snap;
}

}  // namespace softbody::server
