#include "engine/scene/setting_reader.h"

#include <stdexcept>

#include "engine/scene/settings_table.h"

namespace softbody {
namespace {

// The setting's key in its section, after checking that the section is the one the table names.
std::string key_of(const JsonReader& section, const SettingSpec& spec) {
  const std::string path = spec.path;
  const std::string key = path.substr(path.rfind('/') + 1);
  if (section.path_of(key) != path)
    throw std::logic_error("setting " + path + " read from " + section.path_of(key));
  return key;
}

double judged(JsonReader& section, const SettingSpec& spec, const std::string& key, double value) {
  const std::string problem = setting_problem(spec, value);
  if (!problem.empty()) section.fail(key, problem);
  return value;
}

}  // namespace

double read_number_setting(JsonReader& section, const char* path, double fallback) {
  const SettingSpec& spec = setting_at(path);
  const std::string key = key_of(section, spec);
  if (!section.has(key)) return fallback;
  return judged(section, spec, key, section.number(key, fallback, spec.length_exponent));
}

double read_required_setting(JsonReader& section, const char* path) {
  const SettingSpec& spec = setting_at(path);
  const std::string key = key_of(section, spec);
  return judged(section, spec, key, section.required_number(key, spec.length_exponent));
}

double read_required_like_setting(JsonReader& section, const std::string& key, const char* path) {
  const SettingSpec& spec = setting_at(path);
  return judged(section, spec, key, section.required_number(key, spec.length_exponent));
}

int read_integer_setting(JsonReader& section, const char* path, int fallback) {
  const SettingSpec& spec = setting_at(path);
  const std::string key = key_of(section, spec);
  if (!section.has(key)) return fallback;
  const nlohmann::json& value = section.raw(key);
  if (!value.is_number_integer())
    section.fail(key, "must be an integer in " + describe_range(spec));
  // Judged as a double: an integer beyond int's range must not wrap into the range.
  return static_cast<int>(judged(section, spec, key, value.get<double>()));
}

std::string read_choice_setting(JsonReader& section, const char* path,
                                const std::string& fallback) {
  const SettingSpec& spec = setting_at(path);
  const std::string key = key_of(section, spec);
  if (!section.has(key)) return fallback;
  const std::string value = section.string(key, fallback);
  const std::string problem = setting_problem(spec, value);
  if (!problem.empty()) section.fail(key, problem);
  return value;
}

}  // namespace softbody
