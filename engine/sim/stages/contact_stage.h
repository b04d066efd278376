// Stage 4 of a step with constraint obstacles: after the free motion, constraint contact
// (engine/contact/constraint_contact.h) moves the state, and its figures go into the statistics.
#pragma once

#include <memory>
#include <span>

#include "engine/contact/constraint_contact.h"

namespace softbody {

class ContactStage {
 public:
  // Resolves contact with `obstacles` (none: nothing to do, no cost) for the step from `state`
  // (whose contact memory it updates; a rolled-back attempt restores it) to p, v. `a` is the
  // matrix of the step's solves; its factor is in `solver`; `matrix` as in
  // ConstraintContact::resolve. False when the state is no longer finite.
  bool run(const SimulationModel& model, std::span<const Obstacle> obstacles, double t_start,
           double t_next, double h, const EdgeBlockMatrix& a, StepSolver& solver,
           SimulationState& state, Vec3Array& p, Vec3Array& v, StepStats& stats,
           const FreeMotionMatrix& matrix = {});
  // The last resolution (for tools' forces and tests).
  const ContactResult& last() const { return result_; }

 private:
  std::unique_ptr<ConstraintContact> contact_;  // made at the first step that needs it
  ContactResult result_;
};

}  // namespace softbody
