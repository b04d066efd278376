#include "engine/sim/vertex_block_descent.h"

#include <Eigen/Eigenvalues>
#include <algorithm>
#include <cmath>
#include <stdexcept>

#include "engine/forces/element_assembly.h"
#include "engine/forces/tet_volume.h"
#include "engine/parallel/parallel.h"
#include "engine/sim/rollback.h"
#include "engine/sim/stages/initial_guess.h"
#include "engine/sim/stages/inversion_alleviation.h"
#include "engine/sim/stages/state_update.h"
#include "engine/sim/surface_loads.h"

namespace softbody {
namespace {

// A vertex's step is halved at most this often; changes of its energy below this fraction of it
// are round-off.
constexpr int kMaxHalvings = 8;
constexpr double kEnergyRoundOff = 1e-12;

// A vertex's 3x3 Newton matrix whose symmetric part is not positive definite (an element
// compressed past its buckling point, a penalty contact's friction) is replaced by that part with
// its eigenvalues raised to the vertex's inertia m/h^2: a descent step no longer than a free
// vertex's.
Vec3 newton_step(const Mat3& hessian, const Vec3& gradient, double inertia) {
  const Mat3 symmetric = 0.5 * (hessian + hessian.transpose());
  Eigen::LLT<Mat3> llt(symmetric);
  if (llt.info() == Eigen::Success) {
    // The matrix itself (friction makes it unsymmetric); LU is as cheap at 3x3.
    return -hessian.partialPivLu().solve(gradient);
  }
  Eigen::SelfAdjointEigenSolver<Mat3> eigen;
  eigen.computeDirect(symmetric);
  const Vec3 clamped = eigen.eigenvalues().cwiseMax(inertia);
  return -(eigen.eigenvectors() *
           (clamped.cwiseInverse().asDiagonal() * (eigen.eigenvectors().transpose() * gradient)));
}

}  // namespace

void check_vbd_model(const SimulationModel& model) {
  if (!model.forces->element_form())
    throw std::invalid_argument(
        "integrator 'vbd' needs a material whose energy is a sum over tetrahedra (stvk-tl, "
        "corotational, neo-hookean, mooney-rivlin, hybrid, snh, snh-smith, cnh, element pressure); "
        "'" +
        model.forces->name() +
        "' as configured has none (edge-based StVK, spring networks and nodal pressure couple "
        "beyond one element)");
  if (model.viscous)
    throw std::invalid_argument(
        "integrator 'vbd' does not support viscous materials (material.viscoelastic, "
        "rate_damping, bulk_viscosity): use implicit-euler or bdf2/bdf3");
}

VertexBlockDescent::VertexBlockDescent(std::shared_ptr<const SimulationModel> model)
    : Integrator(std::move(model)), potential_(model_) {
  check_vbd_model(*model_);
  const MeshTopology& topology = *model_->topology;
  const auto n = static_cast<size_t>(topology.num_vertices());
  build_vertex_corners(topology, corner_offsets_, corners_);
  // Greedy colouring in index order: no two vertices of an edge (hence of a tetrahedron) share a
  // colour, so a colour's vertices are updated independently.
  std::vector<Index> color(n, -1);
  Index num_colors = 0;
  std::vector<char> taken;
  for (size_t i = 0; i < n; ++i) {
    taken.assign(static_cast<size_t>(num_colors) + 1, 0);
    for (const VertexEdge& ve : topology.vertex_edges(static_cast<Index>(i))) {
      const EdgeVertices& e = topology.edges()[static_cast<size_t>(ve.edge)];
      const Index other = e[0] == static_cast<Index>(i) ? e[1] : e[0];
      const Index c = color[static_cast<size_t>(other)];
      if (c >= 0) taken[static_cast<size_t>(c)] = 1;
    }
    Index c = 0;
    while (taken[static_cast<size_t>(c)]) ++c;
    color[i] = c;
    num_colors = std::max(num_colors, c + 1);
  }
  build_csr(
      static_cast<size_t>(num_colors),
      [&](auto add) {
        for (size_t i = 0; i < n; ++i) add(color[i], static_cast<Index>(i));
      },
      color_offsets_, color_vertices_);
}

double VertexBlockDescent::local_energy(size_t i, double h, const Vec3& beta_neighbours,
                                        bool elements) {
  const SimulationModel& m = *model_;
  const IntegratorOptions& o = m.options;
  const Vec3& x = x_[i];
  double e = potential_.vertex_terms(i, x, nullptr);
  for (Index k = corner_offsets_[i]; elements && k < corner_offsets_[i + 1]; ++k) {
    ElementContribution c = ElementContribution::zero();
    m.forces->add_element(x_, corners_[static_cast<size_t>(k)] / 4, kEvalEnergy, c);
    e += c.energy;
  }
  if (o.beta != 0) {
    const Vec3 d = x - potential_.start()[i];
    e += o.beta / h *
         (0.5 * d.dot(potential_.stiffness_start().vertex_blocks[i] * d) + d.dot(beta_neighbours));
  }
  return e;
}

void VertexBlockDescent::vertex_update(size_t i, double h, double t_next,
                                       double& gradient_squared) {
  const SimulationModel& m = *model_;
  const IntegratorOptions& o = m.options;
  const MeshTopology& topology = *m.topology;
  const Vec3 x = x_[i];
  const double inertia = m.mass[i] / (h * h);
  // G's gradient and Hessian at vertex i: inertia and mass damping,
  Vec3 g = inertia * (x - potential_.prediction()[i]) +
           o.alpha * m.mass[i] / h * (x - potential_.start()[i]);
  Mat3 hessian = Mat3::Identity() * (inertia * (1 + o.alpha * h));
  double energy = 0;  // of its tetrahedra here; the rest of its share of G after the loop
  // the elastic energy of the tetrahedra around it,
  for (Index k = corner_offsets_[i]; k < corner_offsets_[i + 1]; ++k) {
    const Index corner = corners_[static_cast<size_t>(k)];
    const auto local = static_cast<size_t>(corner % 4);
    ElementContribution c = ElementContribution::zero(static_cast<int>(local));
    m.forces->add_element(x_, corner / 4,
                          kEvalEnergy | kEvalForces | kEvalStiffness | kEvalOneVertex, c);
    g += c.f[local];
    hessian += c.diagonal[local];
    energy += c.energy;
  }
  // stiffness damping beta K_n (x - x_n) / h, row i (the neighbours' part held),
  Vec3 beta_neighbours = Vec3::Zero();
  if (o.beta != 0) {
    for (const VertexEdge& ve : topology.vertex_edges(static_cast<Index>(i))) {
      const EdgeVertices& e = topology.edges()[static_cast<size_t>(ve.edge)];
      const Mat3& block = potential_.stiffness_start().edge_blocks[static_cast<size_t>(ve.edge)];
      if (ve.sign > 0) {
        const auto j = static_cast<size_t>(e[1]);
        beta_neighbours += block * (x_[j] - potential_.start()[j]);
      } else {
        const auto j = static_cast<size_t>(e[0]);
        beta_neighbours += block.transpose() * (x_[j] - potential_.start()[j]);
      }
    }
    const Vec3 d = x - potential_.start()[i];
    g += o.beta / h * (potential_.stiffness_start().vertex_blocks[i] * d + beta_neighbours);
    hessian += o.beta / h * potential_.stiffness_start().vertex_blocks[i];
  }
  // and the external forces at the vertex's own iterate (velocity (x - x_n) / h).
  g -= potential_.surface_loads()[i];
  const Vec3 velocity = (x - potential_.start()[i]) / h;
  for (size_t k = 0; k < potential_.obstacles().size(); ++k) {
    Vec3 force;
    Mat3 dp, dv;
    if (!contact_force(potential_.obstacles()[k], potential_.obstacle_poses()[k].first,
                       potential_.obstacle_poses()[k].second, x, velocity, force, dp, dv))
      continue;
    g -= force;
    hessian -= dp + dv / h;
  }
  for (size_t a : potential_.anchors_at(i)) {
    const Anchor& anchor = potential_.loads().anchors[a];
    const Vec3 target = anchor.target->position(t_next);
    const Vec3 target_velocity = anchor.target->velocity(t_next);
    g += anchor.stiffness * (x - target) + anchor.damping * (velocity - target_velocity);
    hessian.diagonal().array() += anchor.stiffness + anchor.damping / h;
  }
  gradient_squared = g.squaredNorm();
  energy += local_energy(i, h, beta_neighbours, /*elements=*/false);
  // The Newton step, halved until the vertex's share of G does not rise: StVK's energy is not
  // convex under compression, and an unguarded step there overshoots and feeds energy in (a soft
  // knight rolled back 5 steps in 0.6 s at 10 sweeps). Only this vertex's x_ entry is written: its
  // neighbours are of other colours and not being updated now.
  const Vec3 step = newton_step(hessian, g, inertia);
  for (int halving = 0; halving < kMaxHalvings; ++halving) {
    x_[i] = x + std::ldexp(1.0, -halving) * step;
    if (local_energy(i, h, beta_neighbours, /*elements=*/true) <=
        energy + kEnergyRoundOff * std::abs(energy))
      return;
  }
  x_[i] = x;
}

bool VertexBlockDescent::attempt(SimulationState& state, double h, StepStats& stats) {
  const SimulationModel& m = *model_;
  const IntegratorOptions& o = m.options;
  const auto n = static_cast<size_t>(m.topology->num_vertices());
  const double t_next = state.t + h;
  alleviate(m, h, loads_.anchors, state, stats);

  // The step's prediction, surface loads, K_n and posed obstacles: the potential VBD minimizes
  // vertex by vertex.
  potential_.begin_step(state, loads_, h);

  x_ = adaptive_initial_guess(m, state, h);

  // Sweeps: colours in order, a colour's vertices in parallel; Chebyshev over whole sweeps.
  const double rho = o.chebyshev;
  double omega = 1;
  x_previous_ = x_;
  double first_gradient = 0, last_gradient = 0;
  std::vector<double> gradient_squared(n, 0.0);
  for (int sweep = 0; sweep < o.iterations; ++sweep) {
    x_before_previous_ = x_previous_;
    x_previous_ = x_;
    for_each_by_color(color_offsets_, [&](std::ptrdiff_t k) {
      const auto i = static_cast<size_t>(color_vertices_[static_cast<size_t>(k)]);
      if (!m.fixed.empty() && m.fixed[i]) return;
      vertex_update(i, h, t_next, gradient_squared[i]);
    });
    if (rho > 0) {
      omega = sweep == 0 ? 1 : sweep == 1 ? 2 / (2 - rho * rho) : 4 / (4 - rho * rho * omega);
      if (sweep > 0)
        for (size_t i = 0; i < n; ++i)
          x_[i] = omega * (x_[i] - x_before_previous_[i]) + x_before_previous_[i];
    }
    // |grad G| over the sweep's vertices as each met it (a Gauss-Seidel residual).
    const double sum = deterministic_sum(static_cast<std::ptrdiff_t>(n), [&](std::ptrdiff_t i) {
      return gradient_squared[static_cast<size_t>(i)];
    });
    if (sweep == 0) first_gradient = std::sqrt(sum);
    last_gradient = std::sqrt(sum);
  }
  stats.iterations += o.iterations;
  stats.residual = first_gradient > 0 ? last_gradient / first_gradient : 0;
  stats.converged = std::isfinite(last_gradient);

  // The previous state becomes the history: VBD's next initial guess, and BDF's.
  return accept_positions(m, x_, h, state, stats);
}

StepStats VertexBlockDescent::step(SimulationState& state, const StepInputs& inputs) {
  loads_ = step_loads(*model_, inputs, state.t);
  return fixed_iteration_step(
      *model_, "vbd", state,
      [this](SimulationState& s, double h, StepStats& st) { return attempt(s, h, st); });
}

}  // namespace softbody
