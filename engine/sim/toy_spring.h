// Seed 001 §5's toy spring as a simulation: a unit cube's vertices on linear springs to their rest
// positions (VertexSpringModel, k_i = omega^2 m_i), each an undamped harmonic oscillator displaced
// by A along x at t = 0, with its closed form x(t) = A cos(omega t). The integrators' order tests
// and the work-precision benchmark (softbody-bench integrators) run it through the ordinary step
// code.
#pragma once

#include "engine/sim/simulation.h"

namespace softbody {

struct ToySpring {
  double omega = 2 * M_PI * 2;  // rad/s: a period of 0.5 s
  double amplitude = 0.01;      // m

  double period() const { return 2 * M_PI / omega; }
  // Converged solves (Newton to 1e-13, direct solver): the error is the integrator's own.
  SimulationModel model(IntegratorType type, double dt) const;
  // The closed form at time t.
  void exact(const SimulationModel& model, double t, Vec3Array& p, Vec3Array& v) const;
  // A state at t = 0 on the closed form with the closed form's past as BDF's history, so that each
  // formula shows its own order rather than its start-up's.
  SimulationState exact_start(const SimulationModel& model) const;
  // Largest vertex distance from the closed form in phase space (x, v / omega): after whole
  // periods the position sits at a turning point, where a phase error hardly shows.
  double error(const SimulationModel& model, const SimulationState& state) const;
};

}  // namespace softbody
