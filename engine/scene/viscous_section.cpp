#include "engine/scene/viscous_section.h"

#include "engine/scene/setting_reader.h"
#include "engine/scene/settings_table.h"

namespace softbody {
namespace {

// Pressure and stiffness in N per (scene length)^2; viscosities in N s per (scene length)^2.
constexpr int kPerArea = -2;

double non_negative(JsonReader& r, const std::string& key, double fallback, int length_exponent) {
  const double value = r.number(key, fallback, length_exponent);
  if (!(value >= 0)) r.fail(key, "must be >= 0");
  return value;
}

}  // namespace

std::optional<ConstantQFit> read_constant_q(JsonReader& mat) {
  if (!mat.has("viscoelastic")) return std::nullopt;
  JsonReader ve = mat.object("viscoelastic");
  if (!ve.has("constant_q")) return std::nullopt;
  if (ve.has("prony")) ve.fail("constant_q", "give either prony or constant_q, not both");
  JsonReader cq = ve.object("constant_q");
  cq.only({"Q", "mu", "frequency", "terms"});
  ConstantQ target;
  target.quality = read_required_setting(cq, "/material/viscoelastic/constant_q/Q");
  target.modulus = read_required_setting(cq, "/material/viscoelastic/constant_q/mu");
  target.frequency = cq.number("frequency", target.frequency);
  if (!(target.frequency >= target.band_low && target.frequency <= target.band_high))
    cq.fail("frequency", "must lie in [0.1, 10000] Hz (the band the Prony terms are fitted over)");
  target.terms = cq.integer("terms", target.terms);
  if (target.terms < 1 || target.terms > 8) cq.fail("terms", "must lie in [1, 8]");
  cq.finish();
  ConstantQFit fit = fit_constant_q(target);
  if (!(fit.long_term > 0))
    cq.fail("Q", "the fit has no long-term modulus (Q too low for the band): raise Q");
  return fit;
}

ViscousMaterial read_viscous_material(JsonReader& mat, const Material& elastic,
                                      const std::optional<ConstantQFit>& constant_q) {
  ViscousMaterial out;
  if (constant_q) {
    JsonReader ve = mat.object("viscoelastic");
    ve.only({"constant_q", "bulk_viscosity"});
    ve.raw("constant_q");  // read by read_constant_q
    out.prony = constant_q->prony;
    const double length = mat.length();
    out.bulk_viscosity =
        non_negative(ve, "bulk_viscosity", elastic.lambda() * 0.01 * length * length, kPerArea);
    ve.finish();
  } else if (mat.has("viscoelastic")) {
    JsonReader ve = mat.object("viscoelastic");
    ve.only({"prony", "constant_q", "bulk_viscosity"});
    if (!ve.has("prony")) ve.fail("", "needs prony terms or constant_q");
    const nlohmann::json& terms = ve.array("prony");
    if (terms.empty()) ve.fail("prony", "needs at least one {\"mu\", \"tau\"} term");
    if (terms.size() > 8) ve.fail("prony", "at most 8 terms");
    for (size_t i = 0; i < terms.size(); ++i) {
      JsonReader t = element_reader(terms[i], ve.path_of("prony"), i, mat.source(), mat.length());
      t.only({"mu", "tau"});
      PronyTerm term;
      if (i < kLivePronyTerms) {  // live settings: judged by the settings table
        const std::string path = "/material/viscoelastic/prony/" + std::to_string(i);
        term.mu = read_required_setting(t, (path + "/mu").c_str());
        term.tau = read_required_setting(t, (path + "/tau").c_str());
      } else {  // scene-only terms: judged by the first term's ranges, the same verdicts
        term.mu = read_required_like_setting(t, "mu", "/material/viscoelastic/prony/0/mu");
        term.tau = read_required_like_setting(t, "tau", "/material/viscoelastic/prony/0/tau");
      }
      t.finish();
      out.prony.push_back(term);
    }
    // The thesis's choice for the volumetric part: elastic, with a bulk viscosity of lambda/100
    // (lambda times 10 ms).
    // (The fallback is in the scene's units, like the values read.)
    const double length = mat.length();
    out.bulk_viscosity =
        non_negative(ve, "bulk_viscosity", elastic.lambda() * 0.01 * length * length, kPerArea);
    ve.finish();
  }
  if (mat.has("rate_damping")) {
    JsonReader rd = mat.object("rate_damping");
    rd.only({"lambda", "mu"});
    out.rate_lambda = read_number_setting(rd, "/material/rate_damping/lambda", 0);
    out.rate_mu = read_number_setting(rd, "/material/rate_damping/mu", 0);
    rd.finish();
  }
  return out;
}

}  // namespace softbody
