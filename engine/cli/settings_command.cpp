// softbody-sim settings: the live settings table (engine/scene/settings_table.h) as JSON, or as the
// Markdown table docs/scenes.md carries (a test holds the two equal).
#include <iostream>
#include <nlohmann/json.hpp>

#include "engine/cli/commands.h"
#include "engine/scene/settings_table.h"

namespace softbody::cli {

void add_settings_command(CLI::App& app) {
  auto* cmd = app.add_subcommand(
      "settings", "print the live settings (API name, scene path, range, default) as JSON");
  auto markdown = std::make_shared<bool>(false);
  cmd->add_flag("--markdown", *markdown, "print docs/scenes.md's table instead");
  cmd->callback([markdown] {
    if (*markdown) {
      std::cout << settings_markdown();
      return;
    }
    nlohmann::ordered_json out = nlohmann::ordered_json::array();
    for (const SettingSpec& spec : live_settings()) {
      nlohmann::ordered_json j;
      j["name"] = spec.name;
      j["scene_path"] = spec.path;
      j["type"] = spec.type == SettingType::kNumber    ? "number"
                  : spec.type == SettingType::kInteger ? "integer"
                                                       : "choice";
      j["unit"] = spec.unit;
      j["range"] = describe_range(spec);
      if (spec.type == SettingType::kChoice) {
        for (const SettingChoice& c : spec.choices)
          j["choices"].push_back({{"value", c.value}, {"label", c.label}});
      } else {
        j["min"] = spec.range.lo;
        j["max"] = spec.range.hi;
        j["min_open"] = spec.range.lo_open;
        j["max_open"] = spec.range.hi_open;
      }
      j["default"] = spec.default_text;
      j["help"] = spec.help;
      out.push_back(j);
    }
    std::cout << out.dump(2) << '\n';
  });
}

}  // namespace softbody::cli
