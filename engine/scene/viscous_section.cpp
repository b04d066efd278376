#include "engine/scene/viscous_section.h"

namespace softbody {
namespace {

// Pressure and stiffness in N per (scene length)^2; viscosities in N s per (scene length)^2.
constexpr int kPerArea = -2;

double positive(JsonReader& r, const std::string& key, int length_exponent) {
  const double value = r.required_number(key, length_exponent);
  if (!(value > 0)) r.fail(key, "must be > 0");
  return value;
}

double non_negative(JsonReader& r, const std::string& key, double fallback, int length_exponent) {
  const double value = r.number(key, fallback, length_exponent);
  if (!(value >= 0)) r.fail(key, "must be >= 0");
  return value;
}

}  // namespace

ViscousMaterial read_viscous_material(JsonReader& mat, const Material& elastic) {
  ViscousMaterial out;
  if (mat.has("viscoelastic")) {
    JsonReader ve = mat.object("viscoelastic");
    ve.only({"prony", "bulk_viscosity"});
    const nlohmann::json& terms = ve.array("prony");
    if (terms.empty()) ve.fail("prony", "needs at least one {\"mu\", \"tau\"} term");
    if (terms.size() > 8) ve.fail("prony", "at most 8 terms");
    for (size_t i = 0; i < terms.size(); ++i) {
      JsonReader t = element_reader(terms[i], ve.path_of("prony"), i, mat.source(), mat.length());
      t.only({"mu", "tau"});
      PronyTerm term;
      term.mu = positive(t, "mu", kPerArea);
      term.tau = positive(t, "tau", 0);
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
    out.rate_lambda = non_negative(rd, "lambda", 0, kPerArea);
    out.rate_mu = non_negative(rd, "mu", 0, kPerArea);
    rd.finish();
  }
  return out;
}

}  // namespace softbody
