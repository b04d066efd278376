#include "server/api/settings_convert.h"

#include <cmath>
#include <stdexcept>

#include "engine/scene/settings_table.h"
#include "server/api_error.h"

namespace softbody::server {

SettingsUpdate settings_from_proto(const v1::SessionSettings& s) {
  SettingsUpdate update;
  const google::protobuf::Descriptor* descriptor = s.GetDescriptor();
  const google::protobuf::Reflection* reflection = s.GetReflection();
  for (const SettingSpec& spec : live_settings()) {
    const google::protobuf::FieldDescriptor* field = descriptor->FindFieldByName(spec.name);
    if (!field) throw std::logic_error(std::string("SessionSettings has no field ") + spec.name);
    if (!reflection->HasField(s, field)) continue;
    std::string problem;
    nlohmann::json value;
    switch (field->cpp_type()) {
      case google::protobuf::FieldDescriptor::CPPTYPE_DOUBLE: {
        const double number = reflection->GetDouble(s, field);
        problem = setting_problem(spec, number);
        value = number;
        break;
      }
      case google::protobuf::FieldDescriptor::CPPTYPE_INT32: {
        const std::int32_t number = reflection->GetInt32(s, field);
        problem = setting_problem(spec, static_cast<double>(number));
        value = number;
        break;
      }
      case google::protobuf::FieldDescriptor::CPPTYPE_STRING: {
        std::string text = reflection->GetString(s, field);
        problem = setting_problem(spec, text);
        value = std::move(text);
        break;
      }
      default:
        throw std::logic_error(std::string("SessionSettings.") + spec.name +
                               ": a type the settings table does not know");
    }
    if (!problem.empty()) invalid_argument(std::string("settings.") + spec.name, problem);
    update.values.push_back({&spec, std::move(value)});
  }
  return update;
}

void describe_settings(google::protobuf::RepeatedPtrField<v1::SettingDescriptor>& out) {
  for (const SettingSpec& spec : live_settings()) {
    v1::SettingDescriptor& d = *out.Add();
    d.set_name(spec.name);
    d.set_scene_path(spec.path);
    d.set_type(spec.type == SettingType::kNumber    ? v1::SettingDescriptor::TYPE_NUMBER
               : spec.type == SettingType::kInteger ? v1::SettingDescriptor::TYPE_INTEGER
                                                    : v1::SettingDescriptor::TYPE_CHOICE);
    d.set_unit(spec.unit);
    if (spec.type != SettingType::kChoice) {
      d.set_min(spec.range.lo);
      d.set_max(spec.range.hi);
      d.set_min_open(spec.range.lo_open);
      d.set_max_open(spec.range.hi_open);
    }
    for (const SettingChoice& c : spec.choices) {
      v1::SettingChoice& choice = *d.add_choices();
      choice.set_value(c.value);
      choice.set_label(c.label);
    }
    d.set_default_value(spec.default_text);
    d.set_label(spec.label);
    d.set_help(spec.help);
    if (spec.control.shown) {
      v1::SettingControl& control = *d.mutable_control();
      control.set_min(spec.control.min);
      control.set_max(spec.control.max);
      control.set_step(spec.control.step);
      control.set_log(spec.control.log);
    }
    d.set_scope(spec.scope == SettingScope::kNotConstantQ
                    ? v1::SettingDescriptor::SCOPE_NOT_CONSTANT_Q
                : spec.scope == SettingScope::kConstantQ ? v1::SettingDescriptor::SCOPE_CONSTANT_Q
                : spec.scope == SettingScope::kPronyTerm ? v1::SettingDescriptor::SCOPE_PRONY_TERM
                                                         : v1::SettingDescriptor::SCOPE_ALWAYS);
  }
}

void effective_prony_terms(const nlohmann::json& document, double length,
                           v1::EffectiveSettings& out) {
  const google::protobuf::Descriptor* descriptor = out.GetDescriptor();
  const google::protobuf::Reflection* reflection = out.GetReflection();
  for (const SettingSpec& spec : live_settings()) {
    if (spec.scope != SettingScope::kPronyTerm) continue;
    const google::protobuf::FieldDescriptor* field = descriptor->FindFieldByName(spec.name);
    if (!field) throw std::logic_error(std::string("EffectiveSettings has no field ") + spec.name);
    const nlohmann::json::json_pointer path(spec.path);
    // The document holds value_SI * length^-exponent (write_setting).
    const double value = document.contains(path) ? document.at(path).get<double>() *
                                                       std::pow(length, spec.length_exponent)
                                                 : 0.0;
    reflection->SetDouble(&out, field, value);
  }
}

}  // namespace softbody::server
