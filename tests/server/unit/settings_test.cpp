// Live settings in process: the API's SessionSettings is the settings table field for field, and
// UpdateSettings' validation gives the table's verdict and message for every setting at and beyond
// each bound (the scene parser's side: engine/tests/settings_table_test.cpp; both over real gRPC:
// tests/server/settings_entry_points_test.cpp).
#include <gtest/gtest.h>

#include <set>

#include "engine/tests/setting_probes.h"
#include "server/api/settings_convert.h"
#include "server/api_error.h"
#include "tests/server/setting_message.h"

namespace softbody::server {
namespace {

std::set<std::string> field_names(const google::protobuf::Descriptor& d) {
  std::set<std::string> names;
  for (int i = 0; i < d.field_count(); ++i) names.insert(std::string(d.field(i)->name()));
  return names;
}

TEST(Settings, TheApiHasOneFieldPerTableEntry) {
  std::set<std::string> table;
  for (const SettingSpec& spec : live_settings()) table.insert(spec.name);
  EXPECT_EQ(field_names(*v1::SessionSettings::descriptor()), table);
  // EffectiveSettings reports every one (and more: what they resolved to).
  const std::set<std::string> effective = field_names(*v1::EffectiveSettings::descriptor());
  for (const std::string& name : table) EXPECT_TRUE(effective.count(name)) << name;
}

TEST(Settings, UpdateSettingsGivesTheTablesVerdictAndMessage) {
  int refused = 0;
  for (const SettingSpec& spec : live_settings()) {
    for (const test::SettingProbe& probe : test::setting_probes(spec)) {
      const std::string problem = spec.type == SettingType::kChoice
                                      ? setting_problem(spec, probe.choice)
                                      : setting_problem(spec, probe.number);
      try {
        const SettingsUpdate update = settings_from_proto(test::settings_with(spec, probe));
        EXPECT_TRUE(probe.inside) << spec.name << " accepted " << probe.number << probe.choice;
        ASSERT_EQ(update.values.size(), 1u);
        EXPECT_EQ(update.values[0].spec, &spec);
      } catch (const ApiError& e) {
        ++refused;
        EXPECT_FALSE(probe.inside) << spec.name << ": " << e.what();
        EXPECT_EQ(e.code(), grpc::StatusCode::INVALID_ARGUMENT);
        EXPECT_EQ(std::string(e.what()), "settings." + std::string(spec.name) + ": " + problem);
      }
    }
  }
  EXPECT_GE(refused, static_cast<int>(live_settings().size()));
}

TEST(Settings, NonFiniteNumbersAreRefusedByName) {
  v1::SessionSettings s;
  s.set_youngs_modulus(std::numeric_limits<double>::infinity());
  EXPECT_THROW(
      {
        try {
          settings_from_proto(s);
        } catch (const ApiError& e) {
          EXPECT_EQ(std::string(e.what()),
                    "settings.youngs_modulus: must lie in (0, 1e+12] Pa, not inf");
          throw;
        }
      },
      ApiError);
}

TEST(Settings, ClientsReceiveTheTable) {
  google::protobuf::RepeatedPtrField<v1::SettingDescriptor> described;
  describe_settings(described);
  ASSERT_EQ(described.size(), static_cast<int>(live_settings().size()));
  for (const v1::SettingDescriptor& d : described) {
    const SettingSpec* spec = find_setting(d.name());
    ASSERT_NE(spec, nullptr) << d.name();
    EXPECT_EQ(d.scene_path(), spec->path);
    if (spec->type == SettingType::kChoice) {
      EXPECT_EQ(d.choices_size(), static_cast<int>(spec->choices.size()));
    } else {
      EXPECT_EQ(d.min(), spec->range.lo);
      EXPECT_EQ(d.max(), spec->range.hi);
      EXPECT_EQ(d.min_open(), spec->range.lo_open);
    }
    EXPECT_EQ(d.has_control(), spec->control.shown) << d.name();
    // A control offers only values the server accepts.
    if (d.has_control() && spec->type != SettingType::kChoice) {
      EXPECT_TRUE(spec->range.contains(d.control().min())) << d.name();
      EXPECT_TRUE(spec->range.contains(d.control().max())) << d.name();
    }
  }
}

}  // namespace
}  // namespace softbody::server
