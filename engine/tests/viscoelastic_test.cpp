// Viscous stresses (seed 001 §2.6-2.7): the step's forces and tangent against finite differences,
// the Prony memory against the closed-form relaxation, creep of a hanging bar towards the
// long-term elastic sag, no damping of rigid rotation, and memory carried by the state.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>

#include "engine/forces/verification.h"
#include "engine/forces/viscoelastic.h"
#include "engine/mesh/box_generator.h"
#include "engine/sim/integrator.h"

namespace softbody {
namespace {

// One step of a ViscousModel seen as a force model, for the finite-difference checks.
class ViscousStepModel final : public ForceModel {
 public:
  ViscousStepModel(std::shared_ptr<const MeshTopology> topology, const ViscousModel& model,
                   const ViscousStep& step)
      : ForceModel(std::move(topology)), model_(model), step_(step) {}
  std::string name() const override { return "viscous-step"; }
  std::unique_ptr<ForceWorkspace> make_workspace() const override {
    return std::make_unique<ElementWorkspace>();
  }
  using ForceModel::evaluate;
  void evaluate(const Vec3Array& p, unsigned what, ForceWorkspace& workspace,
                ForceOutput& out) const override {
    prepare_output(what, out);
    model_.add(p, step_, what, dynamic_cast<ElementWorkspace&>(workspace), out);
  }

 private:
  const ViscousModel& model_;
  const ViscousStep& step_;
};

ViscousMaterial liver_like() {
  ViscousMaterial m;
  m.prony = {{3000, 0.05}, {1500, 1.0}};
  m.bulk_viscosity = 300;
  m.rate_lambda = 20;
  m.rate_mu = 5;
  return m;
}

TEST(Viscoelastic, StepForcesAndTangentMatchFiniteDifferences) {
  const TetMesh mesh = make_box_mesh({.nx = 3, .ny = 2, .nz = 2, .size = Vec3(0.2, 0.1, 0.1)});
  auto topology = std::make_shared<const MeshTopology>(mesh);
  const ViscousModel model(topology, mesh.vertices, liver_like());
  // A history: two steps through deformed shapes, then a step from a third one.
  std::vector<double> memory;
  ViscousStep step;
  const double dt = 0.01;
  Vec3Array p = random_smooth_deformation(mesh.vertices, 0.05, 1);
  model.begin_step(mesh.vertices, memory, dt, step);
  model.update_memory(p, step, memory);
  ASSERT_EQ(memory.size(), model.memory_size());
  const Vec3Array p2 = random_smooth_deformation(mesh.vertices, 0.08, 2);
  model.begin_step(p, memory, dt, step);
  model.update_memory(p2, step, memory);
  model.begin_step(p2, memory, dt, step);
  const ViscousStepModel as_forces(topology, model, step);
  for (unsigned seed : {3u, 4u}) {
    const Vec3Array at = random_smooth_deformation(mesh.vertices, 0.1, seed);
    EXPECT_LT(force_vs_energy_error(as_forces, at), 1e-6) << seed;
    EXPECT_LT(stiffness_vs_force_error(as_forces, at), 1e-6) << seed;
  }
  // At the step's start the rate terms vanish and only the relaxing memory pulls: the force is
  // that of the memory alone, whatever the rate constants.
  ViscousMaterial prony_only = liver_like();
  prony_only.bulk_viscosity = prony_only.rate_lambda = prony_only.rate_mu = 0;
  const ViscousModel relaxing(topology, mesh.vertices, prony_only);
  ViscousStep relaxing_step;
  relaxing.begin_step(p2, memory, dt, relaxing_step);
  const ForceOutput with_rates = as_forces.evaluate(p2, kEvalForces);
  const ForceOutput memory_only =
      ViscousStepModel(topology, relaxing, relaxing_step).evaluate(p2, kEvalForces);
  for (size_t v = 0; v < p2.size(); ++v)
    EXPECT_LT((with_rates.f[v] - memory_only.f[v]).norm(), 1e-9 * (1 + memory_only.f[v].norm()));
}

// With the StVK elastic law the two add up to one prestressed StVK element: the fused pass equals
// the elastic model plus the viscous one, to rounding.
TEST(Viscoelastic, TheFusedStvkPassEqualsElasticPlusViscous) {
  const TetMesh mesh = make_box_mesh({.nx = 3, .ny = 2, .nz = 2, .size = Vec3(0.2, 0.1, 0.1)});
  auto topology = std::make_shared<const MeshTopology>(mesh);
  const Material elastic{2e4, 0.45, 1000};
  const ViscousModel fused(topology, mesh.vertices, liver_like(), &elastic);
  const ViscousModel apart(topology, mesh.vertices, liver_like());
  ASSERT_TRUE(fused.fuses_elastic());
  ASSERT_FALSE(apart.fuses_elastic());
  const auto stvk = make_force_model("stvk-tl", topology, mesh.vertices, elastic);
  std::vector<double> memory;
  ViscousStep step;
  const Vec3Array p1 = random_smooth_deformation(mesh.vertices, 0.05, 5);
  fused.begin_step(mesh.vertices, memory, 0.02, step);
  fused.update_memory(p1, step, memory);
  fused.begin_step(p1, memory, 0.02, step);
  const Vec3Array p = random_smooth_deformation(mesh.vertices, 0.07, 6);
  ElementWorkspace workspace;
  ForceOutput one_pass, two_passes = stvk->evaluate(p, kEvalAll);
  fused.evaluate_with_elastic(p, step, kEvalAll, workspace, one_pass);
  apart.add(p, step, kEvalAll, workspace, two_passes);
  EXPECT_NEAR(one_pass.energy, two_passes.energy, 1e-12 * std::abs(two_passes.energy));
  double f_scale = 0, k_scale = 0;
  for (const Vec3& f : two_passes.f) f_scale = std::max(f_scale, f.norm());
  for (const Mat3& k : two_passes.K.edge_blocks) k_scale = std::max(k_scale, k.norm());
  for (size_t v = 0; v < p.size(); ++v)
    EXPECT_LT((one_pass.f[v] - two_passes.f[v]).norm(), 1e-12 * f_scale);
  for (size_t e = 0; e < two_passes.K.edge_blocks.size(); ++e)
    EXPECT_LT((one_pass.K.edge_blocks[e] - two_passes.K.edge_blocks[e]).norm(), 1e-12 * k_scale);
  for (size_t v = 0; v < p.size(); ++v)
    EXPECT_LT((one_pass.K.vertex_blocks[v] - two_passes.K.vertex_blocks[v]).norm(),
              1e-12 * k_scale);
}

// A shear ramped in over one step and then held: each term's memory is the closed-form
// q_i(t) = g_i dev E exp(-(t - h)/tau_i) of a linear ramp over [0, h], to rounding.
TEST(Viscoelastic, HeldShearRelaxesAsThePronySeries) {
  const TetMesh mesh = make_box_mesh({.nx = 1, .ny = 1, .nz = 1, .size = Vec3(0.1, 0.1, 0.1)});
  auto topology = std::make_shared<const MeshTopology>(mesh);
  ViscousMaterial material;
  material.prony = {{4000, 0.03}, {1000, 0.5}};
  const ViscousModel model(topology, mesh.vertices, material);
  Vec3Array sheared = mesh.vertices;
  for (Vec3& x : sheared) x.x() += 0.2 * x.y();  // simple shear, gamma = 0.2
  const double h = 0.01;
  std::vector<double> memory;
  ViscousStep step;
  model.begin_step(mesh.vertices, memory, h, step);
  model.update_memory(sheared, step, memory);
  // dev E of simple shear: E = [[0, g/2, 0], [g/2, g^2/2, 0], [0, 0, 0]].
  const double g = 0.2, exy = g / 2, eyy_dev = g * g / 2 * (1 - 1.0 / 3);
  for (int n = 1; n <= 60; ++n) {
    const double t = n * h;
    for (size_t i = 0; i < material.prony.size(); ++i) {
      const double tau = material.prony[i].tau;
      const double gain = tau / h * (1 - std::exp(-h / tau));
      const double expected = gain * std::exp(-(t - h) / tau);
      for (Index e = 0; e < topology->num_tets(); ++e) {
        const double* q = &memory[static_cast<size_t>(e) * 12 + 6 * i];
        EXPECT_NEAR(q[1], expected * eyy_dev, 1e-13) << "t=" << t << " term " << i;  // yy
        EXPECT_NEAR(q[3], expected * exy, 1e-13) << "t=" << t << " term " << i;      // xy
      }
    }
    model.begin_step(sheared, memory, h, step);
    model.update_memory(sheared, step, memory);
  }
}

// A cantilever bar hanging under gravity, clamped at x = 0.
SimulationModel hanging_bar(const ViscousMaterial& viscous, double youngs_modulus) {
  const TetMesh mesh = make_box_mesh({.nx = 6, .ny = 2, .nz = 2, .size = Vec3(0.3, 0.05, 0.05)});
  SimulationModel m;
  m.topology = std::make_shared<const MeshTopology>(mesh);
  const Material material{youngs_modulus, 0.3, 1000};
  m.forces = make_force_model("stvk-tl", m.topology, mesh.vertices, material);
  if (!viscous.empty())
    m.viscous = std::make_shared<const ViscousModel>(m.topology, mesh.vertices, viscous);
  m.rest = mesh.vertices;
  m.mass = lumped_masses(mesh, material.density);
  m.fixed.assign(mesh.vertices.size(), 0);
  for (size_t v = 0; v < mesh.vertices.size(); ++v) m.fixed[v] = mesh.vertices[v].x() < 1e-9;
  m.options.type = IntegratorType::kImplicitEuler;
  m.options.dt = 0.01;
  m.options.alpha = 2;  // settles the elastic vibration; creep is the material's
  m.options.newton.tolerance = 1e-9;
  m.options.solver = {.type = SolverType::kAuto, .tolerance = 1e-10, .max_iterations = 1000};
  return m;
}

double tip_drop(const SimulationModel& m, const SimulationState& s) {
  double drop = 0;
  for (size_t v = 0; v < s.p.size(); ++v)
    if (m.rest[v].x() > 0.3 - 1e-9) drop = std::max(drop, m.rest[v].y() - s.p[v].y());
  return drop;
}

double sag_after(const SimulationModel& model, double seconds) {
  auto shared = std::make_shared<const SimulationModel>(model);
  auto integrator = make_integrator(shared);
  SimulationState s = rest_state(*shared);
  const int steps = static_cast<int>(std::lround(seconds / model.options.dt));
  for (int i = 0; i < steps; ++i) {
    const StepStats stats = integrator->step(s);
    EXPECT_FALSE(stats.failed);
  }
  return tip_drop(*shared, s);
}

// Creep: a standard linear solid (long-term E, one Prony term four times as stiff in shear with
// tau = 0.5 s, so a retardation time of about 2.5 s) first sags like the instantaneous (stiffer)
// material and then creeps to the long-term sag of the elastic material.
TEST(Viscoelastic, AHangingBarCreepsToItsLongTermSag) {
  const double e = 2e6, mu = e / (2 * 1.3);
  ViscousMaterial creep;
  creep.prony = {{4 * mu, 0.5}};
  const double long_term = sag_after(hanging_bar({}, e), 6.0);
  const double early = sag_after(hanging_bar(creep, e), 0.2);
  const double late = sag_after(hanging_bar(creep, e), 14.0);
  std::printf("sag: elastic %.6g, viscoelastic at 0.2 s %.6g, at 14 s %.6g\n", long_term, early,
              late);
  EXPECT_LT(early, 0.6 * long_term) << early << " vs " << long_term;
  EXPECT_NEAR(late, long_term, 0.01 * long_term);
}

// Green strain is blind to rigid motion: a spinning viscoelastic body keeps its spin like the
// elastic one, where mass-proportional (Rayleigh alpha) damping slows it.
TEST(Viscoelastic, ASpinningBodyIsNotSlowedByItsViscosity) {
  auto spin_after = [](SimulationModel m, double alpha) {
    m.fixed.clear();
    m.gravity = Vec3::Zero();
    m.options.alpha = alpha;
    auto shared = std::make_shared<const SimulationModel>(m);
    auto integrator = make_integrator(shared);
    SimulationState s = rest_state(*shared);
    Vec3 center = Vec3::Zero();
    for (const Vec3& x : s.p) center += x / static_cast<double>(s.p.size());
    for (size_t v = 0; v < s.p.size(); ++v) s.v[v] = Vec3(0, 0, 3.0).cross(s.p[v] - center);
    auto momentum = [&] {
      Vec3 l = Vec3::Zero();
      for (size_t v = 0; v < s.p.size(); ++v) l += m.mass[v] * (s.p[v] - center).cross(s.v[v]);
      return l.z();
    };
    const double l0 = momentum();
    for (int i = 0; i < 50; ++i) integrator->step(s);
    return momentum() / l0;
  };
  ViscousMaterial viscous = liver_like();
  const double elastic = spin_after(hanging_bar({}, 2e6), 0);
  const double visco = spin_after(hanging_bar(viscous, 2e6), 0);
  const double rayleigh = spin_after(hanging_bar({}, 2e6), 0.5);
  std::printf("spin kept: elastic %.6g, viscoelastic %.6g, Rayleigh %.6g\n", elastic, visco,
              rayleigh);
  EXPECT_NEAR(visco, elastic, 1e-3 * elastic);
  EXPECT_LT(rayleigh, 0.85 * elastic);
}

// The memory is state: a fresh integrator continues a copied state bit for bit, and rolling the
// state back rolls the memory back.
TEST(Viscoelastic, TheMemoryLivesInTheState) {
  ViscousMaterial viscous = liver_like();
  auto model = std::make_shared<const SimulationModel>(hanging_bar(viscous, 2e6));
  auto first = make_integrator(model);
  SimulationState s = rest_state(*model);
  for (int i = 0; i < 20; ++i) first->step(s);
  ASSERT_EQ(s.material_memory.size(), model->viscous->memory_size());
  SimulationState copy = s;
  auto second = make_integrator(model);
  for (int i = 0; i < 10; ++i) {
    first->step(s);
    second->step(copy);
  }
  EXPECT_EQ(s.p, copy.p);
  EXPECT_EQ(s.v, copy.v);
  EXPECT_EQ(s.material_memory, copy.material_memory);
  // Without the memory (a state that forgot it) the continuation differs: it is not decoration.
  SimulationState forgetful = s;
  forgetful.material_memory.clear();
  SimulationState remembering = s;
  first->step(remembering);
  make_integrator(model)->step(forgetful);
  EXPECT_NE(remembering.p, forgetful.p);
}

}  // namespace
}  // namespace softbody
