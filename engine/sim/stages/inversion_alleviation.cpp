#include "engine/sim/stages/inversion_alleviation.h"

#include <vector>

#include "engine/sim/surface_loads.h"

namespace softbody {

int count_inverted(const MeshTopology& topology, const Vec3Array& x) {
  int inverted = 0;
  for (const Tet& tet : topology.tets())
    if (six_signed_volume(x, tet) <= 0) ++inverted;
  return inverted;
}

AlleviationResult alleviate_inversions(const SimulationModel& model, double h, double t_next,
                                       int sweeps, std::span<const Anchor> held, const Vec3Array& p,
                                       Vec3Array& v) {
  AlleviationResult result;
  const MeshTopology& topology = *model.topology;
  const std::vector<Tet>& tets = topology.tets();
  std::vector<std::uint8_t> infinite(model.fixed.begin(), model.fixed.end());
  infinite.resize(p.size(), 0);
  for (const Anchor& a : held) infinite[static_cast<size_t>(a.vertex)] = 1;
  // The external acceleration M^-1 f_ext per vertex: gravity and the surface loads (a pressure
  // can crush a thin layer within a step as a throw can); none on fixed vertices.
  Vec3Array acceleration(p.size(), model.gravity);
  if (!model.surface_loads.empty()) {
    ExternalForceOutput loads;
    loads.reset(p.size());
    add_surface_loads(model.surface_loads, p, t_next, loads);
    for (size_t i = 0; i < p.size(); ++i)
      if (model.mass[i] > 0) acceleration[i] += loads.h[i] / model.mass[i];
  }
  for (size_t i = 0; i < model.fixed.size() && i < p.size(); ++i)
    if (model.fixed[i]) acceleration[i].setZero();
  // Seed 004 eq. 11: the predicted velocity v~ = v + h a, and y = p + h v~.
  const auto predicted_velocity = [&](size_t i) { return Vec3(v[i] + h * acceleration[i]); };
  Vec3Array y(p.size());
  for (size_t i = 0; i < p.size(); ++i) y[i] = p[i] + h * predicted_velocity(i);
  // Elements inverted already at p are beyond its reach (and would only lose their motion).
  std::vector<std::uint8_t> eligible(tets.size());
  for (size_t e = 0; e < tets.size(); ++e) eligible[e] = six_signed_volume(p, tets[e]) > 0;
  auto inverted_now = [&] {
    int n = 0;
    for (size_t e = 0; e < tets.size(); ++e)
      if (eligible[e] && six_signed_volume(y, tets[e]) <= 0) ++n;
    return n;
  };
  result.inverted_before = result.inverted_after = inverted_now();
  for (int sweep = 0; sweep < sweeps && result.inverted_after > 0; ++sweep) {
    for (size_t e = 0; e < tets.size(); ++e) {
      const Tet& tet = tets[e];
      // In sweep order: an element averaged earlier in the sweep is seen re-predicted.
      if (!eligible[e] || six_signed_volume(y, tet) > 0) continue;
      // Eq. 12: the mass-weighted mean of the predicted velocities (held vertices' alone when
      // there are any: infinite mass).
      Vec3 momentum = Vec3::Zero(), held_velocity = Vec3::Zero();
      double mass = 0;
      int held_count = 0;
      for (Index i : tet) {
        const auto k = static_cast<size_t>(i);
        if (infinite[k]) {
          held_velocity += predicted_velocity(k);
          ++held_count;
        } else {
          momentum += model.mass[k] * predicted_velocity(k);
          mass += model.mass[k];
        }
      }
      const Vec3 mean = held_count > 0 ? Vec3(held_velocity / held_count)
                                       : (mass > 0 ? Vec3(momentum / mass) : Vec3::Zero());
      // v = v~* - h a: the integrator adds h a back, so its own prediction is y = p + h v~*
      // (and the momentum of v is kept: the loads' impulse is unchanged).
      for (Index i : tet) {
        const auto k = static_cast<size_t>(i);
        if (infinite[k]) continue;
        v[k] = mean - h * acceleration[k];
        y[k] = p[k] + h * mean;
      }
    }
    ++result.sweeps;
    result.inverted_after = inverted_now();
  }
  return result;
}

void alleviate(const SimulationModel& model, double h, std::span<const Anchor> held,
               SimulationState& state, StepStats& stats) {
  const int sweeps = model.options.alleviation_sweeps;
  if (sweeps <= 0) return;
  const AlleviationResult r =
      alleviate_inversions(model, h, state.t + h, sweeps, held, state.p, state.v);
  stats.inverted_before_alleviation += r.inverted_before;
  stats.alleviation_sweeps += r.sweeps;
}

}  // namespace softbody
