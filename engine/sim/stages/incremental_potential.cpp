#include "engine/sim/stages/incremental_potential.h"

#include "engine/parallel/parallel.h"
#include "engine/sim/surface_loads.h"

namespace softbody {

IncrementalPotential::IncrementalPotential(std::shared_ptr<const SimulationModel> model)
    : model_(std::move(model)), workspace_(model_->forces->make_workspace()) {}

void IncrementalPotential::begin_step(const SimulationState& state, const StepLoads& loads,
                                      double h) {
  const SimulationModel& m = *model_;
  const size_t n = state.p.size();
  h_ = h;
  t_next_ = state.t + h;
  loads_ = loads;
  anchors_at_.assign(n, {});
  for (size_t a = 0; a < loads_.anchors.size(); ++a)
    anchors_at_[static_cast<size_t>(loads_.anchors[a].vertex)].push_back(a);
  start_ = state.p;
  prediction_.resize(n);
  for (size_t i = 0; i < n; ++i) prediction_[i] = state.p[i] + h * state.v[i] + h * h * m.gravity;
  ExternalForceOutput surface;
  surface.reset(n);
  add_surface_loads(m.surface_loads, state.p, t_next_, surface);
  surface_loads_ = surface.h;
  if (m.options.beta != 0) stiffness_start_ = m.forces->evaluate(state.p, kEvalStiffness).K;
  PosedObstacles posed = pose_obstacles(loads_, t_next_);
  obstacles_ = std::move(posed.obstacles);
  obstacle_poses_ = std::move(posed.poses);
  for (Obstacle& o : obstacles_) o.contact.model = ContactModel::kPenalty;
}

double IncrementalPotential::vertex_terms(size_t i, const Vec3& x, Vec3* gradient) const {
  const SimulationModel& m = *model_;
  const double h = h_, mass = m.mass[i], alpha = m.options.alpha;
  const Vec3 d = x - start_[i], to_prediction = x - prediction_[i];
  double e = 0.5 * mass / (h * h) * to_prediction.squaredNorm() +
             0.5 * alpha * mass / h * d.squaredNorm() - surface_loads_[i].dot(x);
  // The gradient is summed apart and added once (the elastic force in *gradient comes first).
  Vec3 g = Vec3::Zero();
  if (gradient) g = mass / (h * h) * to_prediction + alpha * mass / h * d - surface_loads_[i];
  const Vec3 velocity = d / h;
  for (size_t k = 0; k < obstacles_.size(); ++k) {
    Vec3 force;
    Mat3 dp, dv;
    double depth = 0;
    // The penalty's potential K_N d^2 / 2; its damping and friction dissipate: in the gradient
    // (the step's force), not the value.
    if (!contact_force(obstacles_[k], obstacle_poses_[k].first, obstacle_poses_[k].second, x,
                       velocity, force, dp, dv, &depth))
      continue;
    e += 0.5 * obstacles_[k].contact.stiffness * depth * depth;
    if (gradient) g -= force;
  }
  for (size_t a : anchors_at_[i]) {
    const Anchor& anchor = loads_.anchors[a];
    const Vec3 offset = x - anchor.target->position(t_next_);
    const Vec3 slip = d - h * anchor.target->velocity(t_next_);
    e += 0.5 * anchor.stiffness * offset.squaredNorm() +
         0.5 * anchor.damping / h * slip.squaredNorm();
    if (gradient) g += anchor.stiffness * offset + anchor.damping / h * slip;
  }
  if (gradient) *gradient += g;
  return e;
}

double IncrementalPotential::evaluate(const Vec3Array& x, Vec3Array* gradient) {
  const SimulationModel& m = *model_;
  const auto n = static_cast<std::ptrdiff_t>(x.size());
  m.forces->evaluate(x, gradient ? kEvalEnergy | kEvalForces : kEvalEnergy, *workspace_, elastic_);
  if (gradient) *gradient = elastic_.f;
  // Rayleigh beta: beta/h K_n (x - x_n), with its potential.
  Vec3Array displacement;
  if (m.options.beta != 0) {
    displacement.resize(x.size());
    for (size_t i = 0; i < x.size(); ++i) displacement[i] = x[i] - start_[i];
  }
  Vec3Array damping;
  if (m.options.beta != 0) stiffness_start_.multiply(*m.topology, displacement, damping);
  const double vertex_sum = deterministic_sum(n, [&](std::ptrdiff_t k) {
    const auto i = static_cast<size_t>(k);
    if (!m.fixed.empty() && m.fixed[i]) {
      if (gradient) (*gradient)[i].setZero();
      return 0.0;
    }
    double e = vertex_terms(i, x[i], gradient ? &(*gradient)[i] : nullptr);
    if (m.options.beta != 0) {
      const double scale = m.options.beta / h_;
      e += 0.5 * scale * displacement[i].dot(damping[i]);
      if (gradient) (*gradient)[i] += scale * damping[i];
    }
    return e;
  });
  return elastic_.energy + vertex_sum;
}

std::vector<std::pair<Index, double>> IncrementalPotential::penalty_contacts(
    const Vec3Array& x) const {
  std::vector<std::pair<Index, double>> out;
  if (obstacles_.empty()) return out;
  const SimulationModel& m = *model_;
  for (size_t i = 0; i < x.size(); ++i) {
    if (!m.fixed.empty() && m.fixed[i]) continue;
    double stiffness = 0;
    for (size_t k = 0; k < obstacles_.size(); ++k)
      if (signed_distance(obstacles_[k], obstacle_poses_[k].first, x[i]) < 0)
        stiffness += obstacles_[k].contact.stiffness;
    if (stiffness > 0) out.emplace_back(static_cast<Index>(i), stiffness);
  }
  return out;
}

}  // namespace softbody
