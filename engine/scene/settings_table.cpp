#include "engine/scene/settings_table.h"

#include <cctype>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <stdexcept>

#include "engine/sim/integrator_options.h"

namespace softbody {
namespace {

// A bound as people read it: "1e+12", "0.0001" (the table's bounds are round numbers).
std::string bound_text(double value) {
  char text[32];
  std::snprintf(text, sizeof text, "%g", value);
  return text;
}

// A refused value exactly: the shortest text that reads back as the same double, so that a value
// just beyond a bound does not print as the bound ("1.000001e+12", not "1e+12").
std::string number_text(double value) {
  char text[40];
  const std::to_chars_result end = std::to_chars(text, text + sizeof text, value);
  return std::string(text, end.ptr);
}

std::vector<SettingChoice> integrator_choices() {
  // Labels for people; the values are the engine's own names (a test holds them equal).
  std::vector<SettingChoice> choices;
  for (const std::string& name : integrator_type_names()) {
    const char* label =
        name == "linearized-backward-euler" ? "linearized backward Euler"
        : name == "implicit-euler"          ? "implicit Euler (Newton)"
        : name == "bdf2"                    ? "BDF(2) (Newton)"
        : name == "bdf3"                    ? "BDF(3) (Newton)"
        : name == "vbd"          ? "Vertex Block Descent (fixed sweeps, per-element laws)"
        : name == "projective"   ? "projective dynamics (fixed iterations, one factor)"
        : name == "quasi-newton" ? "quasi-Newton L-BFGS (fixed iterations, one factor)"
        : name == "xpbd"         ? "XPBD (compliant constraints, fixed iterations, no matrix)"
                                 : nullptr;
    if (!label) throw std::logic_error("settings table: no label for integrator " + name);
    // The names outlive the table: integrator_type_name returns static strings.
    choices.push_back({integrator_type_name(parse_integrator_type(name)), label});
  }
  return choices;
}

std::vector<SettingSpec> make_table() {
  using T = SettingType;
  using S = SettingScope;
  return {
      {"youngs_modulus",
       "/material/E",
       T::kNumber,
       "Pa",
       -2,
       {0, 1e12, true, false},
       {},
       "required",
       "Young's modulus",
       "E; rebuilds the force model. Not with a constant-Q material (its fit sets E)",
       {1e3, 3.16e6, 0.01, true, true},
       S::kNotConstantQ},
      {"poisson_ratio",
       "/material/nu",
       T::kNumber,
       "",
       0,
       {-0.999, 0.4999, false, false},
       {},
       "required",
       "Poisson's ratio",
       "nu; rebuilds the force model",
       {0, 0.49, 0.01, false, true},
       S::kAlways},
      {"damping_alpha",
       "/damping/alpha",
       T::kNumber,
       "1/s",
       0,
       {0, 1e4, false, false},
       {},
       "0",
       "Damping (mass)",
       "Rayleigh mass damping alpha: B = alpha M + beta K",
       {0, 20, 0.1, false, true},
       S::kAlways},
      {"damping_beta",
       "/damping/beta",
       T::kNumber,
       "s",
       0,
       {0, 10, false, false},
       {},
       "0",
       "Damping (stiffness)",
       "Rayleigh stiffness damping beta; must be 0 with a viscoelastic or rate-damped material",
       {0, 0.05, 0.0005, false, true},
       S::kAlways},
      {"dt",
       "/dt",
       T::kNumber,
       "s",
       0,
       {kMinTimeStep, kMaxTimeStep, false, false},
       {},
       "0.01",
       "Time step",
       "the step T of the simulation clock",
       {},
       S::kAlways},
      {"solver",
       "/solver/type",
       T::kChoice,
       "",
       0,
       {},
       {{"auto", "reused factorization preconditioning CG or GMRES, to the tolerance"},
        {"direct", "a factorization every step"},
        {"cg", "conjugate gradients, capped"},
        {"bicgstab", "BiCGSTAB, capped"},
        {"qmr", "QMR, capped"},
        {"gmres", "GMRES, capped"}},
       "\"auto\"",
       "Solver",
       "the linear solver (docs/solvers.md)",
       {},
       S::kAlways},
      {"preconditioner",
       "/solver/preconditioner",
       T::kChoice,
       "",
       0,
       {},
       {{"none", "none"},
        {"jacobi", "Jacobi"},
        {"block-jacobi", "3x3 block Jacobi"},
        {"ssor", "SSOR (with cg: Eisenstat's form)"},
        {"ic", "incomplete Cholesky"},
        {"factor", "the reused factorization auto uses"}},
       "\"none\"",
       "Preconditioner",
       "for the Krylov solvers",
       {},
       S::kAlways},
      {"max_iterations",
       "/solver/max_iterations",
       T::kInteger,
       "",
       0,
       {1, 10000, false, false},
       {},
       "100",
       "Iteration cap",
       "the iteration cap of a Krylov solver; a safety cap for auto and direct",
       {},
       S::kAlways},
      {"tolerance",
       "/solver/tolerance",
       T::kNumber,
       "",
       0,
       {0, 1, true, true},
       {},
       "1e-6",
       "Tolerance",
       "the linear solves' relative residual target",
       {},
       S::kAlways},
      {"refactor",
       "/solver/refactor",
       T::kChoice,
       "",
       0,
       {},
       {{"sync", "in the step"}, {"background", "on a background thread"}},
       "\"sync\"",
       "Refactor mode",
       "when auto refreshes its factorization",
       {},
       S::kAlways},
      {"integrator",
       "/integrator/type",
       T::kChoice,
       "",
       0,
       {},
       integrator_choices(),
       "\"implicit-euler\"",
       "Integrator",
       "the time integrator (docs/solvers.md); the state, material memory included, carries "
       "over; a BDF integrator starts at order 1",
       {0, 0, 0, false, true},
       S::kAlways},
      {"alleviation_sweeps",
       "/integrator/alleviation/sweeps",
       T::kInteger,
       "",
       0,
       {0, 100, false, false},
       {},
       "0",
       "Alleviation sweeps",
       "inversion alleviation before each solve (seed 004): at most this many sweeps averaging the "
       "velocities of elements the step's prediction inverts; 0: off",
       {0, 20, 1, false, true},
       S::kAlways},
      {"iterations",
       "/integrator/iterations",
       T::kInteger,
       "",
       0,
       {1, 10000, false, false},
       {},
       "10",
       "Iterations (vbd, projective, quasi-newton, xpbd)",
       "the fixed-iteration integrators' sweeps (vbd) or iterations (projective, quasi-newton; "
       "xpbd per substep) per step: more, closer to implicit Euler and slower; the other "
       "integrators ignore it",
       {1, 200, 1, true, true},
       S::kAlways},
      {"substeps",
       "/integrator/substeps",
       T::kInteger,
       "",
       0,
       {1, 1000, false, false},
       {},
       "1",
       "Substeps",
       "every step taken as this many steps of dt / substeps, by any integrator: XPBD's way to "
       "accuracy (10-40 substeps of 1-2 iterations), a cost for the others",
       {1, 64, 1, true, true},
       S::kAlways},
      {"pressure",
       "/material/pressure",
       T::kChoice,
       "",
       0,
       {},
       {{"auto", "auto (per vertex from nu = 0.45)"},
        {"element", "per element"},
        {"nodal", "per vertex (nearly incompressible)"}},
       "\"auto\"",
       "Pressure mode",
       "one volume per tetrahedron, or per vertex for nearly incompressible tissue; rebuilds "
       "the body",
       {0, 0, 0, false, true},
       S::kAlways},
      {"rate_damping_lambda",
       "/material/rate_damping/lambda",
       T::kNumber,
       "Pa s",
       -2,
       {0, 1e9, false, false},
       {},
       "0",
       "Rate damping (volume)",
       "strain-rate damping d_lambda (sigma = d_lambda tr(E') I + 2 d_mu E'): damps deformation, "
       "not rigid motion; needs damping_beta 0 and an integrator for viscous materials",
       {0, 200, 1, false, true},
       S::kAlways},
      {"rate_damping_mu",
       "/material/rate_damping/mu",
       T::kNumber,
       "Pa s",
       -2,
       {0, 1e9, false, false},
       {},
       "0",
       "Rate damping (shear)",
       "strain-rate damping d_mu (sigma = d_lambda tr(E') I + 2 d_mu E'): damps deformation, "
       "not rigid motion; needs damping_beta 0 and an integrator for viscous materials",
       {0, 200, 1, false, true},
       S::kAlways},
      {"viscous_quality",
       "/material/viscoelastic/constant_q/Q",
       T::kNumber,
       "",
       0,
       {0, 1e6, true, false},
       {},
       "required",
       "Quality Q",
       "a constant-Q material's quality; the Prony terms are fitted again, the memory carries "
       "over",
       {2, 100, 0.01, true, true},
       S::kConstantQ},
      {"viscous_modulus",
       "/material/viscoelastic/constant_q/mu",
       T::kNumber,
       "Pa",
       -2,
       {0, 1e12, true, false},
       {},
       "required",
       "Shear modulus |G|",
       "a constant-Q material's shear modulus at the fit frequency",
       {100, 1e5, 0.01, true, true},
       S::kConstantQ},
      {"prony_mu_1",
       "/material/viscoelastic/prony/0/mu",
       T::kNumber,
       "Pa",
       -2,
       {0, 1e12, true, false},
       {},
       "required",
       "Prony μ1",
       "shear modulus of Prony term 1 (material.viscoelastic.prony[0]): how much stiffer the "
       "tissue is to deformations faster than its tau; the body is rebuilt, the memory carries "
       "over",
       {10, 1e5, 0.01, true, true},
       S::kPronyTerm},
      {"prony_tau_1",
       "/material/viscoelastic/prony/0/tau",
       T::kNumber,
       "s",
       0,
       {0, 1e6, true, false},
       {},
       "required",
       "Prony τ1",
       "relaxation time of Prony term 1 (material.viscoelastic.prony[0]): how long the "
       "tissue takes to give way under a held press",
       {0.01, 100, 0.01, true, true},
       S::kPronyTerm},
      {"prony_mu_2",
       "/material/viscoelastic/prony/1/mu",
       T::kNumber,
       "Pa",
       -2,
       {0, 1e12, true, false},
       {},
       "required",
       "Prony μ2",
       "shear modulus of Prony term 2 (material.viscoelastic.prony[1]): how much stiffer the "
       "tissue is to deformations faster than its tau; the body is rebuilt, the memory carries "
       "over",
       {10, 1e5, 0.01, true, true},
       S::kPronyTerm},
      {"prony_tau_2",
       "/material/viscoelastic/prony/1/tau",
       T::kNumber,
       "s",
       0,
       {0, 1e6, true, false},
       {},
       "required",
       "Prony τ2",
       "relaxation time of Prony term 2 (material.viscoelastic.prony[1]): how long the "
       "tissue takes to give way under a held press",
       {0.01, 100, 0.01, true, true},
       S::kPronyTerm},
      {"prony_mu_3",
       "/material/viscoelastic/prony/2/mu",
       T::kNumber,
       "Pa",
       -2,
       {0, 1e12, true, false},
       {},
       "required",
       "Prony μ3",
       "shear modulus of Prony term 3 (material.viscoelastic.prony[2]): how much stiffer the "
       "tissue is to deformations faster than its tau; the body is rebuilt, the memory carries "
       "over",
       {10, 1e5, 0.01, true, true},
       S::kPronyTerm},
      {"prony_tau_3",
       "/material/viscoelastic/prony/2/tau",
       T::kNumber,
       "s",
       0,
       {0, 1e6, true, false},
       {},
       "required",
       "Prony τ3",
       "relaxation time of Prony term 3 (material.viscoelastic.prony[2]): how long the "
       "tissue takes to give way under a held press",
       {0.01, 100, 0.01, true, true},
       S::kPronyTerm},
  };
}

}  // namespace

bool SettingRange::contains(double value) const {
  return std::isfinite(value) && (lo_open ? value > lo : value >= lo) &&
         (hi_open ? value < hi : value <= hi);
}

const std::vector<SettingSpec>& live_settings() {
  static const std::vector<SettingSpec> table = make_table();
  return table;
}

const SettingSpec* find_setting(std::string_view name) {
  for (const SettingSpec& spec : live_settings())
    if (name == spec.name) return &spec;
  return nullptr;
}

const SettingSpec& setting_at(std::string_view path) {
  for (const SettingSpec& spec : live_settings())
    if (path == spec.path) return spec;
  throw std::logic_error("the settings table has no " + std::string(path));
}

std::string describe_range(const SettingSpec& spec) {
  if (spec.type == SettingType::kChoice) {
    std::string list;
    for (const SettingChoice& c : spec.choices) {
      if (!list.empty()) list += ", ";
      list += c.value;
    }
    return list;
  }
  const SettingRange& r = spec.range;
  // Appended piece by piece: `"(" + std::string` trips GCC 12's -Wrestrict false positive.
  std::string text(r.lo_open ? "(" : "[");
  text += bound_text(r.lo);
  text += ", ";
  text += bound_text(r.hi);
  text += r.hi_open ? ")" : "]";
  if (*spec.unit) text += std::string(" ") + spec.unit;
  return text;
}

std::string setting_problem(const SettingSpec& spec, double value) {
  if (spec.type == SettingType::kChoice) return "expected one of " + describe_range(spec);
  if (spec.type == SettingType::kInteger && value != std::floor(value))
    return "must be an integer in " + describe_range(spec);
  if (spec.range.contains(value)) return {};
  return (spec.type == SettingType::kInteger ? "must be an integer in " : "must lie in ") +
         describe_range(spec) + ", not " + number_text(value);
}

std::string setting_problem(const SettingSpec& spec, const std::string& choice) {
  if (spec.type != SettingType::kChoice)
    return "expected a number in " + describe_range(spec) + ", not the string \"" + choice + "\"";
  for (const SettingChoice& c : spec.choices)
    if (choice == c.value) return {};
  std::string noun = spec.label;
  for (char& c : noun) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return "unknown " + noun + " '" + choice + "' (" + describe_range(spec) + ")";
}

std::string setting_scope_problem(const SettingSpec& spec, const nlohmann::json& document) {
  static const nlohmann::json::json_pointer constant_q("/material/viscoelastic/constant_q");
  const bool is_constant_q = document.contains(constant_q);
  if (spec.scope == SettingScope::kConstantQ && !is_constant_q)
    return "the session's material is not constant-Q (material.viscoelastic.constant_q)";
  if (spec.scope == SettingScope::kNotConstantQ && is_constant_q)
    return "the session's material is constant-Q: its fit sets E (change viscous_modulus)";
  if (spec.scope == SettingScope::kPronyTerm) {
    // The path names the term: /material/viscoelastic/prony/<i>/<mu|tau>.
    const nlohmann::json::json_pointer term =
        nlohmann::json::json_pointer(spec.path).parent_pointer();
    if (!document.contains(term)) {
      static const nlohmann::json::json_pointer prony("/material/viscoelastic/prony");
      const size_t terms =
          document.contains(prony) && document.at(prony).is_array() ? document.at(prony).size() : 0;
      return "the session's material has no Prony term " +
             std::to_string(std::stoi(term.back()) + 1) + " (material.viscoelastic.prony has " +
             std::to_string(terms) + " term" + (terms == 1 ? "" : "s") +
             (is_constant_q ? ": it is constant-Q, set by Q and |G|" : "") + ")";
    }
  }
  return {};
}

void write_setting(nlohmann::json& document, const SettingSpec& spec, const nlohmann::json& value,
                   double length) {
  nlohmann::json& slot = document[nlohmann::json::json_pointer(spec.path)];
  // The document holds lengths in its own unit: E in N per (unit length)^2.
  if (value.is_number_float() && spec.length_exponent != 0)
    slot = value.get<double>() * std::pow(length, -spec.length_exponent);
  else
    slot = value;
}

std::string settings_markdown() {
  std::string out =
      "| setting (API) | scene path | type | range | default | meaning |\n"
      "|---|---|---|---|---|---|\n";
  for (const SettingSpec& spec : live_settings()) {
    const char* type = spec.type == SettingType::kNumber    ? "number"
                       : spec.type == SettingType::kInteger ? "integer"
                                                            : "string";
    std::string range = describe_range(spec);
    if (spec.type == SettingType::kChoice) {
      range.clear();
      for (const SettingChoice& c : spec.choices)
        range += (range.empty() ? "" : "; ") + std::string("`\"") + c.value + "\"` " + c.label;
    }
    std::string default_text = spec.default_text;
    if (default_text != "required") default_text = '`' + default_text + '`';
    out += std::string("| `") + spec.name + "` | `" + spec.path + "` | " + type + " | " + range +
           " | " + default_text + " | " + spec.help + " |\n";
  }
  return out;
}

}  // namespace softbody
