#include <algorithm>
#include <chrono>
#include <cmath>

#include "engine/parallel/parallel.h"
#include "engine/sim/simulation.h"

namespace softbody {
namespace {

using Clock = std::chrono::steady_clock;
double ms_since(Clock::time_point start) {
  return std::chrono::duration<double, std::milli>(Clock::now() - start).count();
}

Eigen::Map<Eigen::VectorXd> flat(Vec3Array& x) {
  return {x.front().data(), 3 * static_cast<Eigen::Index>(x.size())};
}

}  // namespace

SimulationState rest_state(const SimulationModel& model) {
  return {model.rest, Vec3Array(model.rest.size(), Vec3::Zero()), 0.0, 0};
}

double mean_distance(const Vec3Array& a, const Vec3Array& b, double diagonal) {
  double distance = 0;
  for (size_t i = 0; i < a.size(); ++i) distance += (a[i] - b[i]).norm();
  return distance / static_cast<double>(a.size()) / diagonal;
}

double shape_error(const Vec3Array& positions, const Vec3Array& rest) {
  return mean_distance(positions, rest, bounding_box(rest).diagonal());
}

IntegratorOptions reference_options(IntegratorOptions options) {
  options.solver.type = SolverType::kDirect;
  options.solver.tolerance = 1e-10;
  options.solver.max_iterations = 1000;
  options.solver.refactor = RefactorMode::kSync;
  options.solver.time_budget_s = 0;
  return options;
}

std::vector<double> lumped_masses(const TetMesh& mesh, double density) {
  std::vector<double> mass(mesh.vertices.size(), 0.0);
  for (const Tet& t : mesh.tets) {
    const double quarter = density * six_signed_volume(mesh.vertices, t) / 24.0;
    for (Index v : t) mass[static_cast<size_t>(v)] += quarter;
  }
  return mass;
}

Integrator::Integrator(std::shared_ptr<const SimulationModel> model)
    : model_(std::move(model)), force_workspace_(model_->forces->make_workspace()) {}

// One algU step of size dt (seed 000 eqs. 17-19), followed by algUNC when `correction` is set.
bool Integrator::attempt(SimulationState& state, double dt, bool correction, StepStats& stats) {
  const SimulationModel& m = *model_;
  const IntegratorOptions& o = m.options;
  const MeshTopology& topo = *m.topology;
  const auto n = static_cast<size_t>(topo.num_vertices());
  const double t_next = state.t + dt;
  auto t0 = Clock::now();
  m.forces->evaluate(state.p, kEvalForces | kEvalStiffness, *force_workspace_, forces_);
  evaluate_external_forces(anchors_, obstacles_, m.mass, m.gravity, state.p, t_next, external_);
  stats.forces_ms += ms_since(t0);
  stats.contacts = external_.contacts;

  // A = K + ((1/T + alpha) M - T K_H - B_H) / (T + beta): only the diagonal blocks change.
  t0 = Clock::now();
  const double denom = dt + o.beta;
  system_.edge_blocks = forces_.K.edge_blocks;
  system_.vertex_blocks.resize(n);
  rhs_.resize(3 * static_cast<Eigen::Index>(n));
  parallel_for(static_cast<std::ptrdiff_t>(n), [&](std::ptrdiff_t vi) {
    const auto v = static_cast<size_t>(vi);
    Mat3 a = forces_.K.vertex_blocks[v] - (dt * external_.k_h[v] + external_.b_h[v]) / denom;
    a.diagonal().array() += (1 / dt + o.alpha) * m.mass[v] / denom;
    system_.vertex_blocks[v] = a;
    // b = (h - B_H phi - f + M v / T) / (T + beta); fixed vertices: zero velocity.
    const bool fixed = !m.fixed.empty() && m.fixed[v];
    rhs_.segment<3>(3 * vi) = fixed ? Vec3::Zero()
                                    : Vec3((external_.h[v] - external_.b_h[v] * external_.phi[v] -
                                            forces_.f[v] + m.mass[v] / dt * state.v[v]) /
                                           denom);
  });
  stats.assembly_ms += ms_since(t0);

  t0 = Clock::now();
  velocity_ = flat(state.v);  // warm start from v_k
  for (size_t v = 0; v < m.fixed.size(); ++v) {
    if (m.fixed[v]) velocity_.segment<3>(3 * static_cast<Eigen::Index>(v)).setZero();
  }
  ConstrainedBlockOperator op(topo, system_, m.fixed);
  SolveReport report = linear_solver_.solve(op, rhs_, velocity_, solver_);
  stats.solve_ms += ms_since(t0);
  stats.iterations += report.iterations;
  stats.matvecs += report.matvecs;
  stats.residual = std::max(stats.residual, report.relative_residual);
  stats.converged = stats.converged && report.reason == StopReason::kConverged;
  stats.stop_reason = report.reason;
  stats.solver_method = report.method;
  if (report.factorizations > 0) {
    stats.factorizations += report.factorizations;
    stats.factor_ms += report.factor.factor_ms;
  }
  stats.factor_kind = report.factor.kind;
  stats.definiteness_shift = std::max(stats.definiteness_shift, report.shift);
  stats.factor_nonzeros = report.factor.nnz_factor;
  stats.factor_fill = report.factor.fill;
  if (!velocity_.allFinite()) return false;

  Vec3Array v_next(n), p_next(n);
  for (size_t v = 0; v < n; ++v) {
    v_next[v] = velocity_.segment<3>(3 * static_cast<Eigen::Index>(v));
    p_next[v] = state.p[v] + dt * v_next[v];
  }
  if (correction) {
    // algUNC: e = (F(p_{k+1}) - f_k - T K_k v_{k+1}) / (T + beta); per vertex, shrink lambda until
    // lambda^2 |b_j + lambda e_j|^2 <= |b_j|^2 + tr(A_jj)^2 V^2.
    t0 = Clock::now();
    m.forces->evaluate(p_next, kEvalForces, *force_workspace_, forces_next_);
    Vec3Array kv;
    forces_.K.multiply(topo, v_next, kv);
    for (size_t v = 0; v < n; ++v) {
      if (!m.fixed.empty() && m.fixed[v]) continue;
      const Vec3 e = (forces_next_.f[v] - forces_.f[v] - dt * kv[v]) / denom;
      const Vec3 b = rhs_.segment<3>(3 * static_cast<Eigen::Index>(v));
      const double trace = system_.vertex_blocks[v].trace();
      const double bound =
          b.squaredNorm() + trace * trace * o.correction_speed * o.correction_speed;
      double lambda = 1;
      while (lambda * lambda * (b + lambda * e).squaredNorm() > bound && lambda > 1e-6)
        lambda *= 0.9;
      if (lambda < 1) {
        p_next[v] -= (1 - lambda) * dt * v_next[v];
        v_next[v] *= lambda;
        ++stats.corrected_vertices;
        stats.min_lambda = std::min(stats.min_lambda, lambda);
      }
    }
    stats.correction_ms += ms_since(t0);
  }
  double max_speed = 0;
  for (size_t v = 0; v < n; ++v) {
    if (!p_next[v].allFinite() || !v_next[v].allFinite()) return false;
    max_speed = std::max(max_speed, v_next[v].norm());
  }
  stats.max_speed = max_speed;
  if (max_speed > o.max_speed) return false;
  state.p = std::move(p_next);
  state.v = std::move(v_next);
  state.t = t_next;
  return true;
}

StepStats Integrator::step(SimulationState& state, const StepInputs& inputs) {
  const auto start = Clock::now();
  const IntegratorOptions& o = model_->options;
  anchors_ = model_->anchors;
  anchors_.insert(anchors_.end(), inputs.anchors.begin(), inputs.anchors.end());
  obstacles_ = model_->obstacles;
  obstacles_.insert(obstacles_.end(), inputs.obstacles.begin(), inputs.obstacles.end());
  solver_ = o.solver;
  if (inputs.tolerance > 0) solver_.tolerance = std::max(solver_.tolerance, inputs.tolerance);
  StepStats stats;
  stats.tolerance = solver_.tolerance;
  const SimulationState saved = state;
  bool ok = false;
  for (int retry = 0; retry <= o.max_retries && !ok; ++retry) {
    // First attempt as configured; retries with the correction on and 2^retry substeps.
    const int substeps = 1 << retry;
    const bool correction = o.correction || retry > 0;
    state = saved;
    stats.substeps = substeps;
    stats.residual = 0;  // the accepted attempt's solves are what the step reports
    stats.converged = true;
    stats.definiteness_shift = 0;
    ok = true;
    for (int s = 0; s < substeps && ok; ++s)
      ok = attempt(state, o.dt / substeps, correction, stats);
    if (!ok) ++stats.rolled_back;
  }
  if (!ok) {
    // Never propagate a diverged state: keep the positions, drop the kinetic energy (repeating the
    // same velocities would fail the same way), and let time advance.
    state = saved;
    for (Vec3& v : state.v) v.setZero();
    state.t = saved.t + o.dt;
    stats.failed = true;
  }
  state.step = saved.step + 1;
  stats.step = state.step;
  stats.t = state.t;
  stats.step_ms = ms_since(start);
  return stats;
}

}  // namespace softbody
