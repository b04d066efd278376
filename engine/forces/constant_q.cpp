#include "engine/forces/constant_q.h"

#include <Eigen/Dense>
#include <cmath>
#include <complex>
#include <limits>
#include <numbers>
#include <stdexcept>

namespace softbody {
namespace {

using Complex = std::complex<double>;
constexpr int kSamplesPerDecade = 20;

Complex target_modulus(const ConstantQ& q, double gamma, double omega) {
  const double omega_f = 2 * std::numbers::pi * q.frequency;
  return q.modulus * std::pow(omega / omega_f, 2 * gamma) *
         std::polar(1.0, std::numbers::pi * gamma);
}

Complex prony_modulus(double long_term, const std::vector<PronyTerm>& prony, double omega) {
  Complex g = long_term;
  for (const PronyTerm& t : prony) {
    const Complex iwt(0, omega * t.tau);
    g += t.mu * iwt / (1.0 + iwt);
  }
  return g;
}

struct LinearFit {
  double long_term = 0;
  std::vector<double> mu;
  double error = std::numeric_limits<double>::infinity();  // relative L2 of the modulus
};

// Non-negative least squares over (μ₀, μᵢ) for fixed τᵢ: solve, drop the negative coefficients,
// solve again (a small active-set method; few unknowns).
LinearFit fit_moduli(const std::vector<double>& omegas, const std::vector<Complex>& target,
                     const std::vector<double>& taus) {
  const auto m = static_cast<Eigen::Index>(omegas.size());
  const auto n = static_cast<Eigen::Index>(taus.size()) + 1;
  Eigen::MatrixXd a(2 * m, n);
  Eigen::VectorXd b(2 * m);
  for (Eigen::Index k = 0; k < m; ++k) {
    const double weight = 1 / std::abs(target[static_cast<size_t>(k)]);
    a(2 * k, 0) = weight;
    a(2 * k + 1, 0) = 0;
    for (Eigen::Index j = 1; j < n; ++j) {
      const Complex iwt(0, omegas[static_cast<size_t>(k)] * taus[static_cast<size_t>(j - 1)]);
      const Complex basis = iwt / (1.0 + iwt);
      a(2 * k, j) = weight * basis.real();
      a(2 * k + 1, j) = weight * basis.imag();
    }
    b(2 * k) = weight * target[static_cast<size_t>(k)].real();
    b(2 * k + 1) = weight * target[static_cast<size_t>(k)].imag();
  }
  std::vector<bool> active(static_cast<size_t>(n), true);
  Eigen::VectorXd x = Eigen::VectorXd::Zero(n);
  for (int round = 0; round < n; ++round) {
    std::vector<Eigen::Index> columns;
    for (Eigen::Index j = 0; j < n; ++j)
      if (active[static_cast<size_t>(j)]) columns.push_back(j);
    Eigen::MatrixXd sub(2 * m, static_cast<Eigen::Index>(columns.size()));
    for (size_t c = 0; c < columns.size(); ++c)
      sub.col(static_cast<Eigen::Index>(c)) = a.col(columns[c]);
    const Eigen::VectorXd y = sub.colPivHouseholderQr().solve(b);
    x.setZero();
    bool negative = false;
    for (size_t c = 0; c < columns.size(); ++c) {
      x(columns[c]) = y(static_cast<Eigen::Index>(c));
      if (y(static_cast<Eigen::Index>(c)) < 0) {
        active[static_cast<size_t>(columns[c])] = false;
        negative = true;
      }
    }
    if (!negative) break;
    x = x.cwiseMax(0.0);
  }
  LinearFit fit;
  fit.long_term = x(0);
  for (Eigen::Index j = 1; j < n; ++j) fit.mu.push_back(x(j));
  fit.error = (a * x - b).norm() / std::sqrt(static_cast<double>(m));
  return fit;
}

}  // namespace

double constant_q_gamma(double quality) {
  return std::atan(1 / quality) / std::numbers::pi;
}

ConstantQFit fit_constant_q(const ConstantQ& q) {
  if (!(q.quality > 0 && std::isfinite(q.quality)))
    throw std::invalid_argument("Q must be > 0 and finite");
  if (!(q.modulus > 0 && std::isfinite(q.modulus)))
    throw std::invalid_argument("mu must be > 0 and finite");
  if (!(q.band_low > 0 && q.band_high > q.band_low && q.frequency >= q.band_low &&
        q.frequency <= q.band_high)) {
    throw std::invalid_argument("frequency must lie in the band [" + std::to_string(q.band_low) +
                                ", " + std::to_string(q.band_high) + "] Hz");
  }
  if (q.terms < 1 || q.terms > 8) throw std::invalid_argument("terms must lie in [1, 8]");
  const double gamma = constant_q_gamma(q.quality);
  const double decades = std::log10(q.band_high / q.band_low);
  const int samples = std::max(2, static_cast<int>(decades * kSamplesPerDecade) + 1);
  std::vector<double> omegas;
  std::vector<Complex> target;
  for (int k = 0; k < samples; ++k) {
    const double f = q.band_low * std::pow(10.0, decades * k / (samples - 1));
    omegas.push_back(2 * std::numbers::pi * f);
    target.push_back(target_modulus(q, gamma, omegas.back()));
  }
  // Relaxation times: tau_i = 1 / (2 pi f_i) with f_i log-spaced, the first at `start` decades
  // into the band and `spacing` decades apart; searched on a grid.
  LinearFit best;
  std::vector<double> best_taus;
  const int grid = 60;
  for (int s = 0; s <= grid; ++s) {
    const double spacing = q.terms > 1 ? decades * s / grid / (q.terms - 1) : 0;
    if (q.terms > 1 && s == 0) continue;
    for (int o = 0; o <= grid; ++o) {
      const double start = decades * o / grid;
      if (start + spacing * (q.terms - 1) > decades + 1e-12) continue;
      std::vector<double> taus;
      for (int i = 0; i < q.terms; ++i)
        taus.push_back(1 /
                       (2 * std::numbers::pi * q.band_low * std::pow(10.0, start + spacing * i)));
      LinearFit fit = fit_moduli(omegas, target, taus);
      if (fit.error < best.error) {
        best = std::move(fit);
        best_taus = taus;
      }
      if (q.terms == 1) break;
    }
  }
  ConstantQFit out;
  out.long_term = best.long_term;
  for (size_t i = 0; i < best_taus.size(); ++i)
    if (best.mu[i] > 0) out.prony.push_back({best.mu[i], best_taus[i]});
  double error2 = 0, norm2 = 0;
  for (size_t k = 0; k < omegas.size(); ++k) {
    const Complex s_target = 1.0 / target[k];
    const Complex s_fit = 1.0 / prony_modulus(out.long_term, out.prony, omegas[k]);
    error2 += std::norm((s_fit - s_target) / s_target);
    norm2 += 1;
  }
  out.compliance_error = std::sqrt(error2 / norm2);
  return out;
}

}  // namespace softbody
