#include "engine/forces/viscoelastic.h"

#include <cmath>
#include <stdexcept>
#include <string>

#include "engine/forces/element_models.h"

namespace softbody {
namespace {

Mat3 green_strain(const Vec3Array& p, const Tet& tet, const TetRestGeometry& g) {
  const Mat3 f = deformation_gradient(p, tet, g);
  return 0.5 * (f.transpose() * f - Mat3::Identity());
}

Mat3 deviatoric(const Mat3& e) {
  Mat3 d = e;
  d.diagonal().array() -= e.trace() / 3;
  return d;
}

// The upper triangle of a symmetric tensor: xx, yy, zz, xy, yz, xz.
Mat3 unpack(const double* q) {
  Mat3 m;
  m << q[0], q[3], q[5], q[3], q[1], q[4], q[5], q[4], q[2];
  return m;
}

void pack(const Mat3& m, double* q) {
  q[0] = m(0, 0);
  q[1] = m(1, 1);
  q[2] = m(2, 2);
  q[3] = m(0, 1);
  q[4] = m(1, 2);
  q[5] = m(0, 2);
}

struct TermFactors {
  double decay, gain;  // a_i, g_i
};

TermFactors factors(const PronyTerm& term, double dt) {
  const double x = dt / term.tau;
  // g = (1 - e^{-x}) / x, by expm1 so that tau >> dt loses no digits.
  return {std::exp(-x), -std::expm1(-x) / x};
}

}  // namespace

void ViscousMaterial::check() const {
  for (size_t i = 0; i < prony.size(); ++i) {
    const std::string at = "prony[" + std::to_string(i) + "]";
    if (!(prony[i].mu > 0 && std::isfinite(prony[i].mu)))
      throw std::invalid_argument(at + ".mu must be > 0 and finite");
    if (!(prony[i].tau > 0 && std::isfinite(prony[i].tau)))
      throw std::invalid_argument(at + ".tau must be > 0 and finite");
  }
  for (const auto& [name, value] :
       {std::pair{"bulk_viscosity", bulk_viscosity}, std::pair{"rate_damping.lambda", rate_lambda},
        std::pair{"rate_damping.mu", rate_mu}}) {
    if (!(value >= 0 && std::isfinite(value)))
      throw std::invalid_argument(std::string(name) + " must be >= 0 and finite");
  }
}

ViscousModel::ViscousModel(std::shared_ptr<const MeshTopology> topology, const Vec3Array& rest,
                           ViscousMaterial material, const Material* stvk_elastic)
    : topology_(std::move(topology)),
      geometry_(compute_rest_geometry(rest, topology_->tets())),
      coloring_(color_tets(*topology_)),
      material_(std::move(material)) {
  material_.check();
  if (stvk_elastic) {
    fused_ = true;
    elastic_lambda_ = stvk_elastic->lambda();
    elastic_mu_ = stvk_elastic->mu();
  }
}

void ViscousModel::begin_step(const Vec3Array& p_start, const std::vector<double>& memory,
                              double dt, ViscousStep& step, const RateFormula* rate) const {
  const auto& tets = topology_->tets();
  const size_t n = tets.size();
  const size_t per = static_cast<size_t>(memory_per_element());
  if (!memory.empty() && memory.size() != memory_size())
    throw std::invalid_argument("viscous memory has " + std::to_string(memory.size()) +
                                " values, the model needs " + std::to_string(memory_size()));
  const ViscousMaterial& m = material_;
  std::vector<TermFactors> terms;
  double prony_gain = 0;  // sum mu_i g_i
  for (const PronyTerm& term : m.prony) {
    terms.push_back(factors(term, dt));
    prony_gain += term.mu * terms.back().gain;
  }
  const double rate_dt = rate ? rate->dt : dt;
  const double volumetric_rate = (m.rate_lambda + m.bulk_viscosity) / rate_dt;
  step.dt = dt;
  step.mu = prony_gain + m.rate_mu / rate_dt;
  step.lambda = -2.0 / 3.0 * prony_gain + volumetric_rate;
  step.prestress.resize(n);
  step.start_strain.resize(n);
  parallel_for(static_cast<std::ptrdiff_t>(n), [&](std::ptrdiff_t ti) {
    const auto t = static_cast<size_t>(ti);
    const Mat3 e = green_strain(p_start, tets[t], geometry_[t]);
    // The strain the rate terms difference against: E_n, or the multistep formula's sum.
    Mat3 e_rate = e;
    if (rate) {
      e_rate.setZero();
      for (size_t j = 0; j < rate->positions.size(); ++j)
        e_rate += rate->weights[j] * green_strain(*rate->positions[j], tets[t], geometry_[t]);
    }
    Mat3 s0 = -2 * (prony_gain * deviatoric(e) + m.rate_mu / rate_dt * e_rate);
    s0.diagonal().array() -= volumetric_rate * e_rate.trace();
    if (!memory.empty()) {
      for (size_t i = 0; i < terms.size(); ++i)
        s0 += (2 * m.prony[i].mu * terms[i].decay) * unpack(&memory[t * per + 6 * i]);
    }
    step.prestress[t] = s0;
    step.start_strain[t] = e;
  });
}

void ViscousModel::add(const Vec3Array& p, const ViscousStep& step, unsigned what,
                       ElementWorkspace& workspace, ForceOutput& out) const {
  const auto& tets = topology_->tets();
  assemble_elements(*topology_, coloring_, what, workspace, out,
                    [&](Index t, unsigned w, ElementContribution& c) {
                      const auto i = static_cast<size_t>(t);
                      stvk_tl_element_prestressed(p, tets[i], geometry_[i], step.lambda, step.mu,
                                                  step.prestress[i], w, c);
                    });
}

void ViscousModel::evaluate_with_elastic(const Vec3Array& p, const ViscousStep& step, unsigned what,
                                         ElementWorkspace& workspace, ForceOutput& out) const {
  if (!fused_) throw std::logic_error("evaluate_with_elastic: the elastic law is not StVK");
  prepare_force_output(*topology_, what, out);
  const auto& tets = topology_->tets();
  const double lambda = elastic_lambda_ + step.lambda, mu = elastic_mu_ + step.mu;
  assemble_elements(*topology_, coloring_, what, workspace, out,
                    [&](Index t, unsigned w, ElementContribution& c) {
                      const auto i = static_cast<size_t>(t);
                      stvk_tl_element_prestressed(p, tets[i], geometry_[i], lambda, mu,
                                                  step.prestress[i], w, c);
                    });
}

void ViscousModel::update_memory(const Vec3Array& p_end, const ViscousStep& step,
                                 std::vector<double>& memory) const {
  const auto& tets = topology_->tets();
  const size_t per = static_cast<size_t>(memory_per_element());
  if (per == 0) return;
  if (memory.empty()) memory.assign(memory_size(), 0.0);
  std::vector<TermFactors> terms;
  for (const PronyTerm& term : material_.prony) terms.push_back(factors(term, step.dt));
  parallel_for(static_cast<std::ptrdiff_t>(tets.size()), [&](std::ptrdiff_t ti) {
    const auto t = static_cast<size_t>(ti);
    const Mat3 increment =
        deviatoric(green_strain(p_end, tets[t], geometry_[t]) - step.start_strain[t]);
    for (size_t i = 0; i < terms.size(); ++i) {
      double* q = &memory[t * per + 6 * i];
      pack(terms[i].decay * unpack(q) + terms[i].gain * increment, q);
    }
  });
}

}  // namespace softbody
