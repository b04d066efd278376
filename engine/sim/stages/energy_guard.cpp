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
  for (size_t i = 0; i < p.size(); ++i) {
    e.kinetic += 0.5 * model.mass[i] * v[i].squaredNorm();
    e.potential -= model.mass[i] * model.gravity.dot(p[i]);
  }
  e.potential += penalty_potential(loads, p, t);
  return e;
}

double created_energy(const SimulationModel& model, const StepLoads& loads,
                      const EnergyState& start, const EnergyState& end) {
  const Vec3Array &p = start.p, &p_next = end.p;
  const MechanicalEnergy before =
      mechanical_energy(model, loads, p, start.v, start.t, start.elastic);
  const MechanicalEnergy after = mechanical_energy(model, loads, p_next, end.v, end.t, end.elastic);
  // Work on the body: what moving targets and obstacles added to the penalty potentials at the
  // step's end positions, and the surface loads (at the step's start) along the displacement.
  double work = penalty_potential(loads, p_next, end.t) - penalty_potential(loads, p_next, start.t);
  ExternalForceOutput surface;
  surface.reset(p.size());
  add_surface_loads(model.surface_loads, p, end.t, surface);
  for (size_t i = 0; i < p.size(); ++i) work += surface.h[i].dot(p_next[i] - p[i]);
  return after.total() - before.total() - work;
}

double remove_created_energy(const SimulationModel& model, const Vec3Array& p, Vec3Array& v,
                             double energy) {
  if (!(energy > 0)) return 0;
  const auto is_free = [&](size_t i) { return model.fixed.empty() || !model.fixed[i]; };
  // The rigid motion with v's momentum: v_c + omega x (p - c), omega = I^-1 L.
  double mass = 0;
  Vec3 centre = Vec3::Zero(), linear = Vec3::Zero();
  for (size_t i = 0; i < p.size(); ++i) {
    mass += model.mass[i];
    centre += model.mass[i] * p[i];
    linear += model.mass[i] * v[i];
  }
  centre /= mass;
  const Vec3 centre_velocity = linear / mass;
  Vec3 angular = Vec3::Zero();
  Mat3 inertia = Mat3::Zero();
  for (size_t i = 0; i < p.size(); ++i) {
    const Vec3 r = p[i] - centre;
    angular += model.mass[i] * r.cross(v[i]);
    inertia += model.mass[i] * (r.squaredNorm() * Mat3::Identity() - r * r.transpose());
  }
  const Vec3 omega = inertia.ldlt().solve(angular);
  double relative_kinetic = 0;
  Vec3Array relative(p.size());
  for (size_t i = 0; i < p.size(); ++i) {
    relative[i] = v[i] - (centre_velocity + omega.cross(p[i] - centre));
    if (is_free(i)) relative_kinetic += 0.5 * model.mass[i] * relative[i].squaredNorm();
  }
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
