#include "engine/sim/stages/energy_guard.h"

#include <cmath>

#include "engine/sim/surface_loads.h"

namespace softbody {
namespace {

// The penalty potentials of anchors and obstacles at positions p, targets and obstacles at t.
double penalty_potential(const StepLoads& loads, const Vec3Array& p, double t) {
  double u = 0;
  for (const Anchor& a : loads.anchors)
    u += 0.5 * a.stiffness *
         (p[static_cast<size_t>(a.vertex)] - a.target->position(t)).squaredNorm();
  for (const auto* list : {&loads.obstacles, &loads.constraint_obstacles})
    for (const Obstacle& o : *list) {
      const Obstacle posed = posed_at(o, t);
      const Vec3 centre = o.trajectory->position(t);
      for (const Vec3& x : p) {
        const double distance = signed_distance(posed, centre, x);
        if (distance < 0) u += 0.5 * o.contact.stiffness * distance * distance;
      }
    }
  return u;
}

}  // namespace

MechanicalEnergy mechanical_energy(const SimulationModel& model, const StepLoads& loads,
                                   const Vec3Array& p, const Vec3Array& v, double t,
                                   double elastic) {
  MechanicalEnergy e;
  e.elastic = elastic;
  e.kinetic = kinetic_energy(model.mass, v);
  for (size_t i = 0; i < p.size(); ++i) e.potential -= model.mass[i] * model.gravity.dot(p[i]);
  e.potential += penalty_potential(loads, p, t);
  return e;
}

EnergyBalance::EnergyBalance(const SimulationModel& model, const StepLoads& loads,
                             const EnergyState& start, double h)
    : model_(model),
      loads_(loads),
      start_p_(start.p),
      start_total_(
          mechanical_energy(model, loads, start.p, start.v, start.t, start.elastic).total()) {
  // Taken at the start positions, because backward Euler steps in the potential of the step's
  // end: the targets move first, then the step dissipates, E(end) <= E(start) + U(p_n, t_end) -
  // U(p_n, t_start) (exact for convex potentials). At the end positions a target the body follows
  // seemed to create k |da| |dp| / 2 per step: a wagged bunny's converged steps lost 25 J to the
  // guard in 0.5 s.
  target_work_ =
      penalty_potential(loads, start.p, start.t + h) - penalty_potential(loads, start.p, start.t);
  if (model.surface_loads.empty()) return;
  ExternalForceOutput surface;
  surface.reset(start.p.size());
  add_surface_loads(model.surface_loads, start.p, start.t + h, surface);
  surface_forces_ = std::move(surface.h);
}

double EnergyBalance::created(const EnergyState& end) const {
  const double after = mechanical_energy(model_, loads_, end.p, end.v, end.t, end.elastic).total();
  // Work on the body: the moving targets' and obstacles', and the surface loads (at the step's
  // start) along the displacement.
  double work = target_work_;
  for (size_t i = 0; i < surface_forces_.size(); ++i)
    work += surface_forces_[i].dot(end.p[i] - start_p_[i]);
  return after - start_total_ - work;
}

Vec3Array velocity_relative_to_rigid_motion(const std::vector<double>& mass, const Vec3Array& p,
                                            const Vec3Array& v) {
  // The rigid motion with v's momentum: v_c + omega x (p - c), omega = I^-1 L.
  const Momentum body = momentum(mass, p, v);
  const Vec3 centre_velocity = body.linear / body.mass;
  Mat3 inertia = Mat3::Zero();
  for (size_t i = 0; i < p.size(); ++i) {
    const Vec3 r = p[i] - body.centre;
    inertia += mass[i] * (r.squaredNorm() * Mat3::Identity() - r * r.transpose());
  }
  const Vec3 omega = inertia.ldlt().solve(body.angular);
  Vec3Array relative(p.size());
  for (size_t i = 0; i < p.size(); ++i)
    relative[i] = v[i] - (centre_velocity + omega.cross(p[i] - body.centre));
  return relative;
}

double remove_created_energy(const SimulationModel& model, const Vec3Array& p, Vec3Array& v,
                             double energy) {
  if (!(energy > 0)) return 0;
  const auto is_free = [&](size_t i) { return model.fixed.empty() || !model.fixed[i]; };
  const Vec3Array relative = velocity_relative_to_rigid_motion(model.mass, p, v);
  double relative_kinetic = 0;
  for (size_t i = 0; i < p.size(); ++i)
    if (is_free(i)) relative_kinetic += 0.5 * model.mass[i] * relative[i].squaredNorm();
  // Energy stored in the deformation or the penalty potentials, or in the rigid motion, is not
  // touched: taking it from the rigid motion stopped a spinning body dead in its first step (a
  // free body must keep its momenta).
  if (!(relative_kinetic > 0)) return 0;
  const double taken = std::min(energy, relative_kinetic);
  const double scale = std::sqrt(1 - taken / relative_kinetic);
  for (size_t i = 0; i < p.size(); ++i)
    if (is_free(i)) v[i] -= (1 - scale) * relative[i];
  return taken;
}

}  // namespace softbody
