// Reads a live setting from its section of a scene document and judges it by the settings table
// (engine/scene/settings_table.h), so that a scene file, `--set` and UpdateSettings agree.
#pragma once

#include <string>

#include "engine/scene/json_reader.h"

namespace softbody {

// `path` is the setting's scene path; `section` must be the object that holds it (a mismatch is a
// programming error: std::logic_error). Numbers come back in SI units.
double read_number_setting(JsonReader& section, const char* path, double fallback);
double read_required_setting(JsonReader& section, const char* path);
int read_integer_setting(JsonReader& section, const char* path, int fallback);
std::string read_choice_setting(JsonReader& section, const char* path, const std::string& fallback);
// A required number at `key` of `section` that the table has no entry of its own for, judged as
// the setting at `path` judges its values (a scene's Prony terms beyond the live ones).
double read_required_like_setting(JsonReader& section, const std::string& key, const char* path);

}  // namespace softbody
