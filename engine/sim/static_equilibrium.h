// Static equilibrium of a scene's body: the positions where the elastic forces balance gravity
// and the scene's surface loads (at the end of their curves) with the fixed vertices held,
// f(p) = h(p), by Newton's method with load increments (the loads ramped in equal steps, each
// converged before the next) and a backtracking line search on the potential energy W(p) - h . p
// (on the residual where a follower pressure, which has no potential, is among the loads). The
// sparse factorization is the engine's (CHOLMOD), so meshes of tens of thousands of tetrahedra
// solve in seconds. Obstacles, anchors and viscosity are not part of it: a viscoelastic body's
// static equilibrium is its elastic law's (the Prony terms have relaxed).
#pragma once

#include <functional>

#include "engine/sim/simulation.h"

namespace softbody {

struct StaticOptions {
  int increments = 10;       // gravity ramped in this many equal steps
  int max_iterations = 50;   // Newton iterations per increment
  double tolerance = 1e-10;  // |residual| / |h| at which an increment has converged
};

struct StaticResult {
  Vec3Array p;
  bool converged = false;
  int iterations = 0;           // Newton iterations over all increments
  double residual = 0;          // |f(p) - m g| / |m g| on the free vertices at the end
  Index inverted_elements = 0;  // tetrahedra with signed volume <= 0 at p
};

// `progress(increment, increments)` is called after each increment.
StaticResult solve_static(const SimulationModel& model, const StaticOptions& options,
                          const std::function<void(int, int)>& progress = {});

}  // namespace softbody
