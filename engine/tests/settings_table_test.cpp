// The live settings table: the scene parser judges every setting by it (with the same message a
// client gets from UpdateSettings: tests/server/unit/settings_test.cpp), its choices are the
// engine's own names, and docs/scenes.md shows it as it is.
#include "engine/scene/settings_table.h"

#include <gtest/gtest.h>

#include <cstdio>
#include <fstream>
#include <functional>
#include <map>
#include <sstream>

#include "engine/scene/scene.h"
#include "engine/sim/integrator_options.h"
#include "engine/solvers/solver_options.h"
#include "engine/tests/setting_probes.h"

namespace softbody {
namespace {

// A scene in centimetres: E and |G| are written in N/cm^2, so a unit slip shows as a wrong verdict.
nlohmann::json base_scene(const SettingSpec& spec) {
  nlohmann::json doc = nlohmann::json::parse(R"({
    "units": "cm",
    "mesh": {"box": {"cells": [2, 1, 1], "size": [20, 10, 10]}},
    "material": {"model": "stvk-tl", "E": 10, "nu": 0.3, "density": 0.001}
  })");
  if (spec.scope == SettingScope::kConstantQ) {
    doc["material"].erase("E");
    doc["material"]["viscoelastic"]["constant_q"] = {{"Q", 5}, {"mu", 0.25}};
  }
  if (spec.scope == SettingScope::kPronyTerm) {  // three terms: every live one exists
    doc["material"]["viscoelastic"]["prony"] = nlohmann::json::array(
        {{{"mu", 0.3}, {"tau", 0.05}}, {{"mu", 0.2}, {"tau", 0.5}}, {{"mu", 0.1}, {"tau", 4}}});
  }
  return doc;
}

std::string number_text(double value) {
  char text[40];
  std::snprintf(text, sizeof text, "%.17g", value);
  return text;
}

// The refusal of a scene with the value, or "" when it builds.
std::string scene_verdict(const SettingSpec& spec, const test::SettingProbe& probe,
                          bool through_override) {
  nlohmann::json doc = base_scene(spec);
  const nlohmann::json value = spec.type == SettingType::kChoice ? nlohmann::json(probe.choice)
                               : spec.type == SettingType::kInteger
                                   ? nlohmann::json(static_cast<long long>(probe.number))
                                   : nlohmann::json(probe.number);
  try {
    if (through_override) {
      // --set takes the document's units: E in N/cm^2 here.
      const double in_document = spec.type == SettingType::kNumber
                                     ? probe.number * std::pow(0.01, -spec.length_exponent)
                                     : 0;
      apply_override(doc,
                     std::string(spec.path) + "=" +
                         (spec.type == SettingType::kChoice    ? probe.choice
                          : spec.type == SettingType::kInteger ? value.dump()
                                                               : number_text(in_document)),
                     "");
    } else {
      write_setting(doc, spec, value, 0.01);
    }
    build_scene(doc, "test.json", ".");
  } catch (const SceneError& e) {
    return e.what();
  }
  return "";
}

std::string probe_text(const test::SettingProbe& probe) {
  return probe.choice.empty() ? number_text(probe.number) : probe.choice;
}

TEST(SettingsTable, SceneFilesAndSetJudgeEverySettingByTheTable) {
  for (const SettingSpec& spec : live_settings()) {
    for (const test::SettingProbe& probe : test::setting_probes(spec)) {
      const std::string problem = spec.type == SettingType::kChoice
                                      ? setting_problem(spec, probe.choice)
                                      : setting_problem(spec, probe.number);
      EXPECT_EQ(problem.empty(), probe.inside) << spec.name << " = " << probe_text(probe);
      for (bool through_override : {false, true}) {
        const std::string verdict = scene_verdict(spec, probe, through_override);
        if (probe.inside) {
          EXPECT_EQ(verdict, "") << spec.name << " = " << probe_text(probe);
        } else {
          EXPECT_EQ(verdict, "test.json: " + std::string(spec.path) + ": " + problem)
              << spec.name << " = " << probe_text(probe)
              << (through_override ? " (--set)" : " (file)");
        }
      }
    }
  }
}

TEST(SettingsTable, AnIntegerBeyondIntIsRefusedNotWrapped) {
  const SettingSpec& spec = setting_at("/solver/max_iterations");
  nlohmann::json doc = base_scene(spec);
  doc["solver"]["max_iterations"] = 4294967297LL;  // 2^32 + 1 wraps to 1
  EXPECT_THROW(build_scene(doc, "test.json", "."), SceneError);
}

TEST(SettingsTable, ChoicesAreTheEnginesOwnNames) {
  const std::map<std::string, std::function<void(const std::string&)>> parsers = {
      {"solver", [](const std::string& v) { parse_solver_type(v); }},
      {"preconditioner", [](const std::string& v) { parse_preconditioner(v); }},
      {"refactor", [](const std::string& v) { parse_refactor_mode(v); }},
      {"integrator", [](const std::string& v) { parse_integrator_type(v); }},
      {"pressure", [](const std::string& v) { parse_pressure_mode(v); }}};
  int choice_settings = 0;
  for (const SettingSpec& spec : live_settings()) {
    if (spec.type != SettingType::kChoice) continue;
    ++choice_settings;
    ASSERT_TRUE(parsers.count(spec.name)) << spec.name;
    for (const SettingChoice& c : spec.choices)
      EXPECT_NO_THROW(parsers.at(spec.name)(c.value)) << spec.name << " " << c.value;
    EXPECT_THROW(parsers.at(spec.name)("bogus"), std::invalid_argument);
  }
  EXPECT_EQ(choice_settings, static_cast<int>(parsers.size()));
  std::vector<std::string> integrators;
  for (const SettingChoice& c : setting_at("/integrator/type").choices)
    integrators.push_back(c.value);
  EXPECT_EQ(integrators, integrator_type_names());
}

TEST(SettingsTable, MessagesNameTheRangeAndTheValue) {
  EXPECT_EQ(setting_problem(setting_at("/material/E"), 1e300),
            "must lie in (0, 1e+12] Pa, not 1e+300");
  EXPECT_EQ(setting_problem(setting_at("/solver/max_iterations"), 10001),
            "must be an integer in [1, 10000], not 10001");
  EXPECT_EQ(setting_problem(setting_at("/solver/type"), std::string("minres")),
            "unknown solver 'minres' (auto, direct, cg, bicgstab, qmr, gmres)");
  EXPECT_EQ(setting_problem(setting_at("/dt"), std::nan("")),
            "must lie in [0.0001, 0.1] s, not nan");
}

TEST(SettingsTable, DocsShowTheTableAsItIs) {
  std::ifstream in(std::string(SOFTBODY_PROJECT_MESHES) + "/../docs/scenes.md");
  ASSERT_TRUE(in) << "docs/scenes.md";
  std::stringstream docs;
  docs << in.rdbuf();
  EXPECT_NE(docs.str().find(settings_markdown()), std::string::npos)
      << "docs/scenes.md's live settings table is stale; replace it with the output of "
         "`softbody-sim settings --markdown`:\n"
      << settings_markdown();
}

}  // namespace
}  // namespace softbody
