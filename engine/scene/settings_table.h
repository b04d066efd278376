// The live settings, one definition each: the name the API uses, where the scene document keeps
// it, its type, unit, range, default and help, and the control a browser shows for it. Scene
// parsing (files, `--set`, CreateSession overrides), UpdateSettings, the browser's controls (sent
// in ListScenesResponse.settings) and the table in docs/scenes.md all come from here, so every
// entry point gives the same verdict and the same message for the same value.
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <vector>

namespace softbody {

enum class SettingType { kNumber, kInteger, kChoice };

// Which materials a setting applies to: E is derived from the fit on a constant-Q material, whose
// own two settings exist only there; a Prony term's settings exist where the material has that
// term (the setting's path names it).
enum class SettingScope { kAlways, kNotConstantQ, kConstantQ, kPronyTerm };

// The Prony terms (material.viscoelastic.prony[i]) that are live settings: the first three
// (prony_mu_1, prony_tau_1, ...). A scene may give up to 8; the others are set by the scene only.
inline constexpr int kLivePronyTerms = 3;

// A closed or open interval, in SI units.
struct SettingRange {
  double lo = 0, hi = 0;
  bool lo_open = false, hi_open = false;
  bool contains(double value) const;
};

struct SettingChoice {
  const char* value;
  const char* label;  // for people: the browser's option text, the docs
};

// How a browser shows a number: a slider over [min, max] (a sub-range of the valid one: the
// values people try), on a log scale when `log`.
struct SettingControl {
  double min = 0, max = 0, step = 0;
  bool log = false;
  bool shown = false;  // the browser shows the setting
};

struct SettingSpec {
  const char* name;  // SessionSettings / EffectiveSettings field, e.g. "youngs_modulus"
  const char* path;  // JSON pointer in a scene document, e.g. "/material/E"
  SettingType type;
  const char* unit;  // SI; "" for none. Scene files give lengths in their own units.
  // The scene document holds value_SI * length^-exponent for a scene whose length unit is
  // `length` metres: E, in N per (unit length)^2, has exponent -2.
  int length_exponent;
  SettingRange range;                  // numbers and integers
  std::vector<SettingChoice> choices;  // choices
  const char* default_text;            // as docs show it: "required", "0.01", "\"auto\""
  const char* label;                   // short, for controls: "Young's modulus"
  const char* help;
  SettingControl control;
  SettingScope scope;
};

const std::vector<SettingSpec>& live_settings();
// By API name; null when there is none.
const SettingSpec* find_setting(std::string_view name);
// By scene path; throws std::logic_error when the table has none (a parser asking for a setting
// the table lacks is a programming error).
const SettingSpec& setting_at(std::string_view path);

// The verdict on a value: empty when accepted, otherwise the problem, e.g.
// "must lie in (0, 1e+12] Pa". The same text at every entry point; each puts its own name for
// the field in front ("settings.youngs_modulus: ", "scene.json: /material/E: ").
std::string setting_problem(const SettingSpec& spec, double value);
std::string setting_problem(const SettingSpec& spec, const std::string& choice);

// The range as people read it: "(0, 1e+12] Pa", "[1, 10000]", "auto, element, nodal".
std::string describe_range(const SettingSpec& spec);

// Why the setting does not apply to a scene document's material (empty when it does): a
// constant-Q material's E comes from its fit; Q and |G| exist only on constant-Q materials.
std::string setting_scope_problem(const SettingSpec& spec, const nlohmann::json& document);

// Writes an accepted SI value into a scene document at the setting's path, in the document's
// units (`length`: its length unit in metres).
void write_setting(nlohmann::json& document, const SettingSpec& spec, const nlohmann::json& value,
                   double length);

// docs/scenes.md's "Live settings" table (Markdown, one row per setting).
std::string settings_markdown();

}  // namespace softbody
