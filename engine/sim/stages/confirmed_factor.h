// Constraint contact's fresh compliance (ContactOptions::fresh_compliance) wants W from a factor of
// the step matrix at the free motion's end, and keeps the factor in use when it was made from a
// matrix within contact.fresh_tolerance of that one. Deciding so needs the matrix, a stiffness
// evaluation: on bench/scenes/knight-grasp-hold.json most of a held step's contact stage, though a
// held body's free motion repeats to a few nanometres a step. SimulationState::confirmed_factor
// records where the factor in use was last found close enough; a later step whose configuration
// is as close to that one keeps it without the evaluation.
#pragma once

#include "engine/sim/simulation.h"
#include "engine/sim/stages/step_forces.h"

namespace softbody {

// Whether no edge vector differs between configurations a and b by more than `tolerance` of the
// edge's rest length: a strain-like distance (a translation moves nothing).
bool edges_within(const MeshTopology& topology, const Vec3Array& rest, const Vec3Array& a,
                  const Vec3Array& b, double tolerance);

// Whether the step matrix has terms other than M, Rayleigh damping and the elastic stiffness:
// anchors (a tool's grab), penalty contacts at the step's start or free motion (`at_start`,
// `at_free`: the external forces evaluated there), surface loads, viscous stresses (they follow the
// material memory). A confirmation is neither made nor used then.
bool step_matrix_has_other_terms(const SimulationModel& model, const StepLoads& loads,
                                 const ExternalForceOutput& at_start,
                                 const ExternalForceOutput& at_free);

// Whether `confirmed` (may be null) still speaks for the factor in use in a step with step size h
// from `start` to the free motion `free` (a step without other terms): the same factor (the
// solver's factorization count `factorizations`) and h, and no edge of the start or the free
// motion changed by more than `tolerance` of its rest length since. Both matrices are then M and
// Rayleigh terms, fixed by the model and h, plus stiffnesses at nearby configurations: a change of
// edge strains by e moved the knight's held-grasp matrix by 0.02-0.2 e (Frobenius, relative;
// bench/RESULTS.md), so a kept factor stays about within the tolerance of the matrix it serves.
bool confirmed_factor_holds(const MeshTopology& topology, const Vec3Array& rest,
                            const SimulationState::ConfirmedFactor* confirmed, long factorizations,
                            double h, const Vec3Array& start, const Vec3Array& free,
                            double tolerance);

}  // namespace softbody
