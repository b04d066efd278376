#include "engine/sim/xpbd.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>

#include "engine/parallel/parallel.h"
#include "engine/sim/rollback.h"
#include "engine/sim/stages/inversion_alleviation.h"
#include "engine/sim/stages/state_update.h"
#include "engine/sim/surface_loads.h"

namespace softbody {

XpbdMaterial check_xpbd_model(const SimulationModel& model) {
  if (model.viscous)
    throw std::invalid_argument(
        "integrator 'xpbd' does not support viscous materials (material.viscoelastic, "
        "rate_damping, bulk_viscosity): use implicit-euler or bdf2/bdf3");
  return xpbd_material(*model.forces, model.material);
}

std::vector<double> xpbd_explicit_shear_gains(const SimulationModel& model, double h) {
  const XpbdMaterial material = check_xpbd_model(model);
  const std::vector<Tet>& tets = model.topology->tets();
  std::vector<double> gains(tets.size(), 0.0);
  if (material.law != XpbdLaw::kSnh && material.law != XpbdLaw::kCnh) return gains;
  const std::vector<TetRestGeometry> geometry = compute_rest_geometry(model.rest, tets);
  for (size_t t = 0; t < tets.size(); ++t) {
    double inertia = 0;  // sum_i w_i |grad N_i|^2
    for (size_t i = 0; i < 4; ++i) {
      const auto v = static_cast<size_t>(tets[t][i]);
      const bool fixed = (!model.fixed.empty() && model.fixed[v]) || !(model.mass[v] > 0);
      if (!fixed) inertia += geometry[t].shape_gradient[i].squaredNorm() / model.mass[v];
    }
    gains[t] = h * h * material.k_deviatoric * geometry[t].volume * inertia / 3;
  }
  return gains;
}

Xpbd::Xpbd(std::shared_ptr<const SimulationModel> model)
    : Integrator(std::move(model)),
      material_(check_xpbd_model(*model_)),
      coloring_(color_tets(*model_->topology)) {
  // The tetrahedra in colour order with their rest geometry: a sweep reads them in sequence.
  const std::vector<Tet>& tets = model_->topology->tets();
  const std::vector<TetRestGeometry> geometry = compute_rest_geometry(model_->rest, tets);
  elements_.reserve(tets.size());
  for (Index t : coloring_.order) {
    const TetRestGeometry& g = geometry[static_cast<size_t>(t)];
    Mat3 shape;
    for (Eigen::Index i = 0; i < 3; ++i)
      shape.col(i) = g.shape_gradient[static_cast<size_t>(i) + 1];
    elements_.push_back(
        {tets[static_cast<size_t>(t)],
         shape,
         g.volume,
         {1 / (material_.k_deviatoric * g.volume), 1 / (material_.k_volumetric * g.volume)}});
  }
}

// Written on plain doubles, like constraints_of: with Eigen's fixed 3 x 3 types GCC mixed scalar
// stores and two-wide loads of the same stack slots here (store-forwarding stalls), and this
// function is most of an XPBD step (1.45x faster on the bunny than the Eigen form).
template <XpbdLaw kLaw>
Xpbd::ElementJacobian Xpbd::element_jacobian(size_t t) const {
  const Element& e = elements_[t];
  const double* shape = e.shape.data();  // column i: vertex i + 1's shape gradient
  // F from edge vectors, as deformation_gradient forms it (a common translation costs nothing).
  const Vec3& p0 = x_[static_cast<size_t>(e.tet[0])];
  double edges[3][3];
  for (size_t i = 0; i < 3; ++i) {
    const Vec3& p = x_[static_cast<size_t>(e.tet[i + 1])];
    for (size_t a = 0; a < 3; ++a)
      edges[i][a] = p[static_cast<Eigen::Index>(a)] - p0[static_cast<Eigen::Index>(a)];
  }
  double f[3][3];
  for (size_t a = 0; a < 3; ++a)
    for (size_t b = 0; b < 3; ++b)
      f[a][b] = edges[0][a] * shape[b] + edges[1][a] * shape[3 + b] + edges[2][a] * shape[6 + b];

  ElementJacobian j;
  double gradient_f[2][3][3];  // dC_k/dF
  constraints_of<kLaw>(material_, f, j.value, gradient_f);

  // dC_k/dx_i = dC_k/dF alpha_i; the shape gradients sum to zero, so do these.
  for (size_t k = 0; k < 2; ++k)
    for (size_t a = 0; a < 3; ++a) {
      double sum = 0;
      for (size_t i = 0; i < 3; ++i) {
        const double g = gradient_f[k][a][0] * shape[3 * i] +
                         gradient_f[k][a][1] * shape[3 * i + 1] +
                         gradient_f[k][a][2] * shape[3 * i + 2];
        j.grad[k][i + 1][a] = g;
        sum += g;
      }
      j.grad[k][0][a] = -sum;
    }
  for (size_t i = 0; i < 4; ++i) {
    const double w = inverse_mass_[static_cast<size_t>(e.tet[i])];
    j.w[i] = w;
    double s00 = 0, s01 = 0, s11 = 0;
    for (size_t a = 0; a < 3; ++a) {
      s00 += j.grad[0][i][a] * j.grad[0][i][a];
      s01 += j.grad[0][i][a] * j.grad[1][i][a];
      s11 += j.grad[1][i][a] * j.grad[1][i][a];
    }
    j.a00 += w * s00;
    j.a01 += w * s01;
    j.a11 += w * s11;
  }
  return j;
}

void Xpbd::add_to_vertices(const Tet& tet, const ElementJacobian& j, double d0, double d1,
                           Vec3Array& out) {
  for (size_t i = 0; i < 4; ++i) {
    if (!(j.w[i] > 0)) continue;
    Vec3& x = out[static_cast<size_t>(tet[i])];
    for (size_t a = 0; a < 3; ++a)
      x[static_cast<Eigen::Index>(a)] += j.w[i] * (d0 * j.grad[0][i][a] + d1 * j.grad[1][i][a]);
  }
}

template <XpbdLaw kLaw>
double Xpbd::project_element(size_t t, double inverse_h2) {
  const Element& e = elements_[t];
  const ElementJacobian j = element_jacobian<kLaw>(t);
  const std::array<double, 2> compliance = {e.compliance_h2[0] * inverse_h2,
                                            e.compliance_h2[1] * inverse_h2};
  std::array<double, 2>& lambda = element_lambda_[t];
  std::array<double, 2> rhs;
  for (size_t k = 0; k < 2; ++k) rhs[k] = -j.value[k] - compliance[k] * lambda[k];
  const double a00 = j.a00 + compliance[0], a01 = j.a01, a11 = j.a11 + compliance[1];
  // SPD (the compliances are > 0): Cramer's rule.
  const double inverse_det = 1 / (a00 * a11 - a01 * a01);
  const double d0 = (a11 * rhs[0] - a01 * rhs[1]) * inverse_det;
  const double d1 = (a00 * rhs[1] - a01 * rhs[0]) * inverse_det;
  lambda[0] += d0;
  lambda[1] += d1;
  add_to_vertices(e.tet, j, d0, d1, x_);
  return rhs[0] * rhs[0] + rhs[1] * rhs[1];
}

void Xpbd::project_anchors() {
  // Anchors may share a vertex: in order, on one thread (they are few).
  for (size_t a = 0; a < anchors_.size(); ++a) {
    const AnchorTarget& anchor = anchors_[a];
    const double w = inverse_mass_[anchor.vertex];
    const Vec3 rhs = -(x_[anchor.vertex] - anchor.centre) - anchor.compliance * anchor_lambda_[a];
    const Vec3 d = rhs / (w + anchor.compliance);
    anchor_lambda_[a] += d;
    x_[anchor.vertex] += w * d;
  }
}

void Xpbd::project_contacts(size_t i, double h) {
  const double w = inverse_mass_[i];
  if (w == 0) return;
  for (size_t k = 0; k < obstacles_.size(); ++k) {
    const ContactParameters& p = obstacles_[k].contact;
    double& lambda = contact_lambda_[i * obstacles_.size() + k];
    double distance;
    Vec3 normal;
    if (!(p.stiffness > 0) ||
        !surface_distance(obstacles_[k], obstacle_poses_[k].first, x_[i], distance, normal))
      continue;
    if (distance >= 0 && lambda == 0) continue;
    const double compliance = 1 / (p.stiffness * h * h);
    const double rhs = -distance - compliance * lambda;
    const double updated = std::max(lambda + rhs / (w + compliance), 0.0);
    x_[i] += w * (updated - lambda) * normal;
    lambda = updated;
  }
}

template <XpbdLaw kLaw>
void Xpbd::damp_element(size_t t, double h, Vec3Array& v) const {
  const Element& e = elements_[t];
  const ElementJacobian j = element_jacobian<kLaw>(t);
  double rate0 = 0, rate1 = 0;
  for (size_t i = 0; i < 4; ++i) {
    const Vec3& velocity = v[static_cast<size_t>(e.tet[i])];
    rate0 += j.gradient(0, i).dot(velocity);
    rate1 += j.gradient(1, i).dot(velocity);
  }
  // The dampers' coefficients beta k_k V; (I + h D J W J^T) eta = -h D J v.
  const double beta = model_->options.beta;
  const double d0 = h * beta * material_.k_deviatoric * e.volume;
  const double d1 = h * beta * material_.k_volumetric * e.volume;
  const double m00 = 1 + d0 * j.a00, m01 = d0 * j.a01, m10 = d1 * j.a01, m11 = 1 + d1 * j.a11;
  const double r0 = -d0 * rate0, r1 = -d1 * rate1;
  const double det = m00 * m11 - m01 * m10;
  add_to_vertices(e.tet, j, (m11 * r0 - m01 * r1) / det, (m00 * r1 - m10 * r0) / det, v);
}

void Xpbd::damp_contacts(double h, Vec3Array& v) const {
  for (size_t i = 0; i < v.size(); ++i) {
    const double w = inverse_mass_[i];
    if (w == 0) continue;
    for (size_t k = 0; k < obstacles_.size(); ++k) {
      double distance;
      Vec3 normal;
      if (!surface_distance(obstacles_[k], obstacle_poses_[k].first, x_[i], distance, normal) ||
          !(distance < 0))
        continue;
      // The penalty law's normal damping C_N and tangential viscosity C_T d, implicitly on the
      // vertex alone; the normal damping only slows an approach or a separation (it never
      // reverses one).
      const ContactParameters& p = obstacles_[k].contact;
      const Vec3 relative = v[i] - obstacle_poses_[k].second;
      const double normal_speed = relative.dot(normal);
      const Vec3 tangential = relative - normal_speed * normal;
      v[i] -= normal * (normal_speed * (1 - 1 / (1 + h * w * p.damping))) +
              tangential * (1 - 1 / (1 + h * w * p.friction * -distance));
    }
  }
}

template <typename Body>
void Xpbd::for_each_element_by_color(Body&& body) const {
  for_each_by_color(coloring_.color_offsets,
                    [&](std::ptrdiff_t k) { body(static_cast<size_t>(k)); });
}

void Xpbd::project_elements(double inverse_h2) {
  with_law(material_.law, [&](auto law) {
    for_each_element_by_color([&](size_t t) {
      element_residual_[t] = project_element<decltype(law)::value>(t, inverse_h2);
    });
  });
}

void Xpbd::damp_elements(double h, Vec3Array& v) const {
  with_law(material_.law, [&](auto law) {
    for_each_element_by_color([&](size_t t) { damp_element<decltype(law)::value>(t, h, v); });
  });
}

bool Xpbd::attempt(SimulationState& state, double h, StepStats& stats) {
  const SimulationModel& m = *model_;
  const IntegratorOptions& o = m.options;
  const auto n = static_cast<size_t>(m.topology->num_vertices());
  const double t_next = state.t + h;
  alleviate(m, h, loads_.anchors, state, stats);

  // Masses with Rayleigh alpha's implicit term, and the prediction: gravity and the surface
  // loads at the step's start, moved towards x_n by the same term.
  ExternalForceOutput surface;
  surface.reset(n);
  add_surface_loads(m.surface_loads, state.p, t_next, surface);
  const double damped = 1 + o.alpha * h;
  inverse_mass_.resize(n);
  x_.resize(n);
  for (size_t i = 0; i < n; ++i) {
    const bool fixed = (!m.fixed.empty() && m.fixed[i]) || !(m.mass[i] > 0);
    inverse_mass_[i] = fixed ? 0 : 1 / (m.mass[i] * damped);
    if (fixed) {
      x_[i] = state.p[i];
      continue;
    }
    const Vec3 y = state.p[i] + h * state.v[i] + h * h * (m.gravity + surface.h[i] / m.mass[i]);
    x_[i] = (y + o.alpha * h * state.p[i]) / damped;
  }
  // The step's anchors as one quadratic potential each, its obstacles posed at its end.
  anchors_.clear();
  for (const Anchor& a : loads_.anchors) {
    const double k = a.stiffness + a.damping / h;
    if (!(k > 0)) continue;
    const auto i = static_cast<size_t>(a.vertex);
    const Vec3 centre = (a.stiffness * a.target->position(t_next) +
                         a.damping / h * (state.p[i] + h * a.target->velocity(t_next))) /
                        k;
    anchors_.push_back({i, centre, 1 / (k * h * h)});
  }
  PosedObstacles posed = pose_obstacles(loads_, t_next);
  obstacles_ = std::move(posed.obstacles);
  obstacle_poses_ = std::move(posed.poses);
  const size_t num_tets = m.topology->tets().size();
  element_lambda_.assign(num_tets, {0.0, 0.0});
  element_residual_.assign(num_tets, 0.0);
  anchor_lambda_.assign(anchors_.size(), Vec3::Zero());
  contact_lambda_.assign(obstacles_.empty() ? 0 : n * obstacles_.size(), 0.0);

  double first_residual = 0, last_residual = 0;
  for (int iteration = 0; iteration < o.iterations; ++iteration) {
    project_elements(1 / (h * h));
    project_anchors();
    if (!obstacles_.empty())
      parallel_for(static_cast<std::ptrdiff_t>(n),
                   [&](std::ptrdiff_t i) { project_contacts(static_cast<size_t>(i), h); });
    // The elements' constraint residual |C + a~ lambda| as each projection met it, summed at the
    // first and the last iteration only (the statistics' ratio; a sum is a parallel region).
    if (iteration > 0 && iteration + 1 < o.iterations) continue;
    const double sum = deterministic_sum(
        static_cast<std::ptrdiff_t>(num_tets),
        [&](std::ptrdiff_t t) { return element_residual_[static_cast<size_t>(t)]; });
    if (iteration == 0) first_residual = std::sqrt(sum);
    last_residual = std::sqrt(sum);
  }
  stats.iterations += o.iterations;
  stats.residual =
      std::max(stats.residual, first_residual > 0 ? last_residual / first_residual : 0);
  stats.converged = stats.converged && std::isfinite(last_residual);

  Vec3Array v(n);
  for (size_t i = 0; i < n; ++i) v[i] = (x_[i] - state.p[i]) / h;
  if (o.beta > 0) damp_elements(h, v);
  if (!obstacles_.empty()) damp_contacts(h, v);
  return accept_positions(m, x_, std::move(v), h, state, stats);
}

StepStats Xpbd::step(SimulationState& state, const StepInputs& inputs) {
  loads_ = step_loads(*model_, inputs, state.t);
  return fixed_iteration_step(
      *model_, "xpbd", state,
      [this](SimulationState& s, double h, StepStats& st) { return attempt(s, h, st); });
}

}  // namespace softbody
