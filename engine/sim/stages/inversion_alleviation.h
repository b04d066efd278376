// Inversion alleviation (seed 004 §5; ../shared/notes/contact-002-inversion-004-extraction.md), a
// stage before any integrator's solve: predict y = p + h v~ with v~ = v + h M^-1 f_ext (gravity
// and the scene's surface loads at the step's end); for each tetrahedron inverted at y (signed
// volume <= 0) but not at p, set its vertices' predicted velocities v~ to their mass-weighted mean
// and predict again; repeat up to `sweeps` times, stopping early when none is left. The velocity
// written back is v = v~ - h M^-1 f_ext, so the integrator's own prediction is the alleviated one.
//
// It keeps each element's linear momentum and removes its relative motion (dissipative), so an
// element no longer collapses through itself within the step. Fixed vertices and vertices held by
// an anchor (a grabbing tool) count as infinite mass: the element takes their velocity. It cannot
// repair an element already inverted at p (averaged velocities move it rigidly), so those are
// skipped, and it guarantees nothing: neighbours averaged in one sweep may invert others, hence
// the sweeps, and an invertible energy stays the net. Obstacles, anchors and tools are not in the
// prediction: they act through the solve.
#pragma once

#include <span>

#include "engine/sim/simulation.h"

namespace softbody {

struct AlleviationResult {
  int inverted_before = 0;  // tetrahedra inverted at the first prediction (not at p)
  int inverted_after = 0;   // at the last prediction
  int sweeps = 0;           // sweeps that changed velocities
};

// Tetrahedra with signed volume <= 0 at `x`.
int count_inverted(const MeshTopology& topology, const Vec3Array& x);

// Changes `v` as above for a step of `h` ending at `t_next` (the surface loads' time); `held`
// lists vertices of infinite mass besides the model's fixed ones (anchored vertices).
AlleviationResult alleviate_inversions(const SimulationModel& model, double h, double t_next,
                                       int sweeps, std::span<const Anchor> held, const Vec3Array& p,
                                       Vec3Array& v);

// The stage as the integrators run it, before their solve: with the model's sweeps (nothing when
// 0), counted into the step's statistics.
void alleviate(const SimulationModel& model, double h, std::span<const Anchor> held,
               SimulationState& state, StepStats& stats);

}  // namespace softbody
