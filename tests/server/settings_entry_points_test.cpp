// One definition per setting, over real gRPC: every live setting at each end of its range and one
// value beyond each end, sent once as a CreateSession override (--set) and once through
// UpdateSettings, gets the same verdict and the same message; ListScenes carries the table.
#include <gtest/gtest.h>

#include <cstdio>

#include "engine/tests/setting_probes.h"
#include "tests/server/api_helpers.h"
#include "tests/server/setting_message.h"
#include "tests/server/test_server.h"

namespace softbody::test {
namespace {

class SettingsEntryPoints : public SharedServerTest<SettingsEntryPoints> {};

const char* kElastic = R"({
  "mesh": {"box": {"cells": [2, 1, 1], "size": [0.2, 0.1, 0.1]}},
  "material": {"model": "stvk-tl", "E": 1e5, "nu": 0.3, "density": 1000},
  "dt": 0.01, "fixed": [{"set": "xmin"}]})";
const char* kConstantQ = R"({
  "mesh": {"box": {"cells": [2, 1, 1], "size": [0.2, 0.1, 0.1]}},
  "material": {"model": "stvk-tl", "nu": 0.3, "density": 1000,
               "viscoelastic": {"constant_q": {"Q": 5, "mu": 2500}}},
  "dt": 0.01, "fixed": [{"set": "xmin"}]})";

// Three Prony terms: every live term's setting exists.
const char* kProny = R"({
  "mesh": {"box": {"cells": [2, 1, 1], "size": [0.2, 0.1, 0.1]}},
  "material": {"model": "stvk-tl", "E": 1e5, "nu": 0.3, "density": 1000,
               "viscoelastic": {"prony": [{"mu": 3000, "tau": 0.05}, {"mu": 2000, "tau": 0.5},
                                          {"mu": 1000, "tau": 4}]}},
  "dt": 0.01, "fixed": [{"set": "xmin"}]})";

std::string value_text(const SettingSpec& spec, const SettingProbe& probe) {
  if (spec.type == SettingType::kChoice) return probe.choice;
  char text[40];
  std::snprintf(text, sizeof text, spec.type == SettingType::kInteger ? "%.0f" : "%.17g",
                probe.number);
  return text;
}

// What follows the field's name in a refusal: "settings.dt: X", "settings.dt (/dt): X" (found
// when the scene was read again) and "scene: ...: /dt: X" give X.
std::string reason(const std::string& message, const SettingSpec& spec) {
  for (const std::string& field : {std::string("settings.") + spec.name + ": ",
                                   std::string("settings.") + spec.name + " (" + spec.path + "): ",
                                   std::string(spec.path) + ": "}) {
    const size_t at = message.find(field);
    if (at != std::string::npos) return message.substr(at + field.size());
  }
  return "(no field named) " + message;
}

TEST_F(SettingsEntryPoints, OverridesAndUpdateSettingsGiveTheSameVerdictAndMessage) {
  auto stub = server_->stub();
  int walked = 0;
  for (const SettingSpec& spec : live_settings()) {
    const char* scene = spec.scope == SettingScope::kConstantQ   ? kConstantQ
                        : spec.scope == SettingScope::kPronyTerm ? kProny
                                                                 : kElastic;
    // A fresh session of the material for each setting's UpdateSettings (a setting's verdict may
    // depend on others: vbd needs a per-element energy, which an earlier probe of nu = 0.4999
    // would have made nodal); a new one per value for the overrides.
    std::string live;
    {
      v1::CreateSessionRequest create;
      create.set_scene_json(scene);
      create.set_start_paused(true);
      v1::SessionInfo info;
      const grpc::Status status = stub->CreateSession(context().get(), create, &info);
      ASSERT_TRUE(status.ok()) << status.error_message();
      live = info.id();
    }
    for (const SettingProbe& probe : setting_probes(spec)) {
      const std::string value = value_text(spec, probe);
      SCOPED_TRACE(std::string(spec.name) + " = " + value);
      v1::CreateSessionRequest create;
      create.set_scene_json(scene);
      create.set_start_paused(true);
      create.add_overrides(std::string(spec.path) + "=" + value);
      v1::SessionInfo created;
      const grpc::Status by_override = stub->CreateSession(context().get(), create, &created);
      if (by_override.ok()) {
        v1::DeleteSessionRequest del;
        del.set_session_id(created.id());
        v1::DeleteSessionResponse deleted;
        stub->DeleteSession(context().get(), del, &deleted);
      }

      v1::UpdateSettingsRequest update;
      update.set_session_id(live);
      *update.mutable_settings() = settings_with(spec, probe);
      v1::SessionInfo updated;
      const grpc::Status by_update = stub->UpdateSettings(context().get(), update, &updated);

      EXPECT_EQ(by_override.ok(), probe.inside) << by_override.error_message();
      EXPECT_EQ(by_update.ok(), probe.inside) << by_update.error_message();
      if (!by_override.ok() && !by_update.ok()) {
        EXPECT_EQ(by_override.error_code(), grpc::StatusCode::INVALID_ARGUMENT);
        EXPECT_EQ(by_update.error_code(), grpc::StatusCode::INVALID_ARGUMENT);
        EXPECT_EQ(reason(by_override.error_message(), spec),
                  reason(by_update.error_message(), spec));
      }
      ++walked;
    }
    v1::DeleteSessionRequest del;
    del.set_session_id(live);
    v1::DeleteSessionResponse deleted;
    stub->DeleteSession(context().get(), del, &deleted);
  }
  EXPECT_GT(walked, 40);
}

TEST_F(SettingsEntryPoints, ListScenesCarriesTheTable) {
  auto stub = server_->stub();
  v1::ListScenesResponse scenes;
  ASSERT_TRUE(stub->ListScenes(context().get(), {}, &scenes).ok());
  ASSERT_EQ(scenes.settings_size(), static_cast<int>(live_settings().size()));
  const v1::SettingDescriptor* nu = nullptr;
  for (const auto& d : scenes.settings())
    if (d.name() == "poisson_ratio") nu = &d;
  ASSERT_NE(nu, nullptr);
  EXPECT_EQ(nu->scene_path(), "/material/nu");
  EXPECT_EQ(nu->max(), setting_at("/material/nu").range.hi);
  EXPECT_TRUE(nu->has_control());
}

}  // namespace
}  // namespace softbody::test
