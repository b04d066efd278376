#include "engine/sim/stages/confirmed_factor.h"

namespace softbody {

bool edges_within(const MeshTopology& topology, const Vec3Array& rest, const Vec3Array& a,
                  const Vec3Array& b, double tolerance) {
  const double squared = tolerance * tolerance;
  for (const EdgeVertices& e : topology.edges()) {
    const auto i = static_cast<size_t>(e[0]), j = static_cast<size_t>(e[1]);
    if (((a[j] - a[i]) - (b[j] - b[i])).squaredNorm() > squared * (rest[j] - rest[i]).squaredNorm())
      return false;
  }
  return true;
}

bool step_matrix_has_other_terms(const SimulationModel& model, const StepLoads& loads,
                                 const ExternalForceOutput& at_start,
                                 const ExternalForceOutput& at_free) {
  return !loads.anchors.empty() || at_start.contacts > 0 || at_free.contacts > 0 ||
         !model.surface_loads.empty() || model.viscous;
}

bool confirmed_factor_holds(const MeshTopology& topology, const Vec3Array& rest,
                            const SimulationState::ConfirmedFactor* confirmed, long factorizations,
                            double h, const Vec3Array& start, const Vec3Array& free,
                            double tolerance) {
  if (!confirmed || tolerance <= 0 || confirmed->factorizations != factorizations ||
      confirmed->h != h || confirmed->start.size() != start.size() ||
      confirmed->free.size() != free.size())
    return false;
  return edges_within(topology, rest, start, confirmed->start, tolerance) &&
         edges_within(topology, rest, free, confirmed->free, tolerance);
}

}  // namespace softbody
