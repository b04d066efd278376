// An integrator's StepSolver as a cache of state.solver (docs/architecture.md: model, state,
// scratch): load() makes the solver hold the state's memory (a no-op while the state is the one
// stored last), store() writes the solver's memory back into the state after its solves.
#pragma once

#include "engine/sim/simulation.h"

namespace softbody {

class SolverCache {
 public:
  StepSolver& load(const SimulationState& state) {
    if (!(state.solver == memory_)) {
      solver_.restore_state(state.solver);
      memory_ = state.solver;
    }
    return solver_;
  }
  // The solver's memory moved on whether or not the attempt is kept (a rollback restores the
  // state's, and load() then the cache).
  void store(SimulationState& state) {
    memory_ = solver_.save_state();
    state.solver = memory_;
  }
  StepSolver& solver() { return solver_; }

 private:
  StepSolver solver_;
  StepSolverState memory_;  // what solver_ holds
};

}  // namespace softbody
