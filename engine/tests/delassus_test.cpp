// Seed 002's compliance for our velocity-form step (issue 22): a force J^T lambda added to the
// step's external forces moves the constraint coordinate J x of the next state by
// T / (T + beta) W lambda and its velocity J v by W lambda / (T + beta), with W = J A^-1 J^T of the
// step matrix A (stages/step_matrix.h: A v_{k+1} = b, b holding the external forces over T + beta).
// Checked against finite differences of a whole linearized step, the force being a change of
// gravity (m_i delta along e on every free vertex: J's row is m_i e).
#include <gtest/gtest.h>

#include "engine/mesh/box_generator.h"
#include "engine/sim/integrator.h"
#include "engine/sim/stages/step_forces.h"
#include "engine/sim/stages/step_matrix.h"
#include "engine/solvers/step_solver.h"
#include "engine/tests/box_models.h"

namespace softbody {
namespace {

SimulationModel bar(double beta) {
  SimulationModel m = test::box_model({.nx = 4, .ny = 2, .nz = 2, .size = Vec3(0.2, 0.05, 0.05)},
                                      {2e5, 0.3, 1000}, "xmin", Vec3(0, -9.81, 0));
  m.options.type = IntegratorType::kLinearizedBackwardEuler;
  m.options.correction = false;  // the step is then linear in the external forces
  m.options.dt = 0.01;
  m.options.beta = beta;
  m.options.solver = {.type = SolverType::kDirect, .tolerance = 1e-13, .max_iterations = 1000};
  return m;
}

TEST(Delassus, TheStepMovesAConstraintByTheComplianceOfItsMatrix) {
  for (double beta : {0.0, 0.004}) {
    const SimulationModel base = bar(beta);
    // A bent, moving start: the step matrix holds K at a deformed state.
    SimulationState start = rest_state(base);
    for (size_t v = 0; v < start.p.size(); ++v) {
      const double s = (base.rest[v].x() - 0) / 0.2;
      if (base.fixed[v]) continue;
      start.p[v].y() -= 0.02 * s * s;
      start.v[v] = Vec3(0, -0.3 * s, 0.1 * s);
    }
    const Vec3 e = Vec3(0.2, 1.0, -0.5).normalized();
    const double delta = 1e-3;  // m/s^2 of extra gravity along e: a force m_i delta e
    SimulationModel pushed = base;
    pushed.gravity += delta * e;
    auto step = [](const SimulationModel& m, SimulationState s) {
      make_integrator(std::make_shared<const SimulationModel>(m))->step(s);
      return s;
    };
    const SimulationState a = step(base, start), b = step(pushed, start);
    // J = the row m_i e over the free vertices; lambda = delta.
    const Index n = base.topology->num_vertices();
    std::vector<Eigen::Triplet<double>> entries;
    double moved = 0, sped = 0;
    for (Index v = 0; v < n; ++v) {
      const auto i = static_cast<size_t>(v);
      if (base.fixed[i]) continue;
      for (int c = 0; c < 3; ++c) entries.emplace_back(3 * v + c, 0, base.mass[i] * e(c));
      moved += base.mass[i] * e.dot(b.p[i] - a.p[i]);
      sped += base.mass[i] * e.dot(b.v[i] - a.v[i]);
    }
    Eigen::SparseMatrix<double> jt(3 * n, 1);
    jt.setFromTriplets(entries.begin(), entries.end());
    // The step matrix at the start, factored as the step's solver does.
    StepInternalForces internal(base);
    internal.begin(start, base.options.dt);
    ForceOutput forces;
    ExternalForceOutput external;
    evaluate_step_forces(base, step_loads(base, {}, 0), start.p, base.options.dt, internal, forces,
                         external);
    EdgeBlockMatrix matrix;
    Eigen::VectorXd rhs, x;
    assemble_step_system(base, base.options.dt, forces, external, start.v, matrix, rhs);
    ConstrainedBlockOperator op(*base.topology, matrix, base.fixed);
    StepSolver solver;
    solver.solve(op, rhs, x, base.options.solver);
    const double w = solver.delassus(op, jt)(0, 0);
    const double t = base.options.dt;
    EXPECT_NEAR(moved / delta, t / (t + beta) * w, 1e-7 * std::abs(moved / delta)) << beta;
    EXPECT_NEAR(sped / delta, w / (t + beta), 1e-7 * std::abs(sped / delta)) << beta;
  }
}

}  // namespace
}  // namespace softbody
