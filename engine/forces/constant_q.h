// Constant-Q viscoelasticity (seed 001 §2.7): a material whose quality factor Q (stored over lost
// energy per cycle, 2π times) is the same at every frequency, as measured for liver, approximated
// by a few Prony terms fitted over the perceptual band (0.1 Hz to 10 kHz).
//
// Kjartansson's constant-Q modulus: G(ω) = μ_f (ω/ω_f)^{2γ} e^{iπγ}, |G(ω_f)| = μ_f, with
// γ = arctan(1/Q)/π, so that Re G / Im G = cot(πγ) = Q exactly. (The thesis prints
// γ = 1/tan(πQ), which gives no sensible γ for Q > 1: a misprint of Q = 1/tan(πγ).)
// A Prony series G(ω) = μ₀ + Σ μᵢ iωτᵢ/(1 + iωτᵢ) is linear in (μ₀, μᵢ) for fixed τᵢ: those are
// fitted by least squares on the relative error of the modulus (to first order the relative error
// of the compliance S = 1/G, the thesis's criterion) at log-spaced frequencies over the band, the
// relaxation times by a search over their log-spacing and offset.
#pragma once

#include <vector>

#include "engine/forces/viscoelastic.h"

namespace softbody {

struct ConstantQ {
  double quality = 4.8;    // Q
  double modulus = 2500;   // |G| at `frequency` [Pa] (shear)
  double frequency = 2;    // [Hz]
  double band_low = 0.1;   // [Hz]
  double band_high = 1e4;  // [Hz]
  int terms = 3;
};

struct ConstantQFit {
  double long_term = 0;          // μ₀ [Pa]: the elastic law's shear modulus
  std::vector<PronyTerm> prony;  // μᵢ, τᵢ
  double compliance_error = 0;   // relative L2 error of the compliance over the band
};

// Kjartansson's γ for a quality factor Q.
double constant_q_gamma(double quality);
// Throws std::invalid_argument for Q <= 0, a modulus <= 0, a band not containing `frequency`, or
// terms outside [1, 8].
ConstantQFit fit_constant_q(const ConstantQ& target);

}  // namespace softbody
