// The integrator family (design guide §3): every time-stepping method behind one interface, built
// by make_integrator from IntegratorOptions::type through one name table
// (integrator_registry.cpp). An integrator holds only the model and scratch memory: everything
// that must survive a step (solver reuse state, material memory, history) lives in the
// SimulationState it is given, so rollback, settings changes, snapshots and migration carry it by
// construction, and any integrator may continue any state of its model.
#pragma once

#include <memory>

#include "engine/contact/constraint_contact.h"
#include "engine/sim/simulation.h"

namespace softbody {

class Integrator {
 public:
  virtual ~Integrator() = default;
  Integrator(const Integrator&) = delete;
  Integrator& operator=(const Integrator&) = delete;

  const SimulationModel& model() const { return *model_; }
  // Advances `state` by one dt. A failed attempt (non-finite, or faster than the model's
  // max_speed) is rolled back and retried (see step_with_rollback); the state is never lost.
  virtual StepStats step(SimulationState& state, const StepInputs& inputs = {}) = 0;

  // The linear system of the last solve, for benchmarks and solver studies; null for an
  // integrator that solves none.
  virtual const EdgeBlockMatrix* system_matrix() const { return nullptr; }
  virtual const Eigen::VectorXd* system_rhs() const { return nullptr; }
  // The last step's constraint contact (points, forces, per obstacle), for tools and tests; null
  // for an integrator without a contact stage.
  virtual const ContactResult* contact_result() const { return nullptr; }

 protected:
  explicit Integrator(std::shared_ptr<const SimulationModel> model) : model_(std::move(model)) {}

  std::shared_ptr<const SimulationModel> model_;
};

// The integrator the model's options name.
std::unique_ptr<Integrator> make_integrator(std::shared_ptr<const SimulationModel> model);

}  // namespace softbody
