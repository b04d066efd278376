#include "engine/sim/stages/inversion_alleviation.h"

#include <vector>

namespace softbody {

int count_inverted(const MeshTopology& topology, const Vec3Array& x) {
  int inverted = 0;
  for (const Tet& tet : topology.tets())
    if (six_signed_volume(x, tet) <= 0) ++inverted;
  return inverted;
}

AlleviationResult alleviate_inversions(const SimulationModel& model, double h, int sweeps,
                                       std::span<const Anchor> held, const Vec3Array& p,
                                       Vec3Array& v) {
  AlleviationResult result;
  const MeshTopology& topology = *model.topology;
  const std::vector<Tet>& tets = topology.tets();
  std::vector<std::uint8_t> infinite(model.fixed.begin(), model.fixed.end());
  infinite.resize(p.size(), 0);
  for (const Anchor& a : held) infinite[static_cast<size_t>(a.vertex)] = 1;
  const Vec3 drop = h * h * model.gravity;
  Vec3Array y(p.size());
  for (size_t i = 0; i < p.size(); ++i) y[i] = p[i] + h * v[i] + drop;
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
      Vec3 momentum = Vec3::Zero(), held_velocity = Vec3::Zero();
      double mass = 0;
      int held_count = 0;
      for (Index i : tet) {
        const auto k = static_cast<size_t>(i);
        if (infinite[k]) {
          held_velocity += v[k];
          ++held_count;
        } else {
          momentum += model.mass[k] * v[k];
          mass += model.mass[k];
        }
      }
      const Vec3 mean = held_count > 0 ? Vec3(held_velocity / held_count)
                                       : (mass > 0 ? Vec3(momentum / mass) : Vec3::Zero());
      for (Index i : tet) {
        const auto k = static_cast<size_t>(i);
        if (infinite[k]) continue;
        v[k] = mean;
        y[k] = p[k] + h * v[k] + drop;
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
  const AlleviationResult r = alleviate_inversions(model, h, sweeps, held, state.p, state.v);
  stats.inverted_before_alleviation += r.inverted_before;
  stats.alleviation_sweeps += r.sweeps;
}

}  // namespace softbody
