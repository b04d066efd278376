// A SessionSettings message holding one live setting's probe value (engine/tests/setting_probes.h),
// set by reflection on the field the settings table names: for the table-driven settings tests.
#pragma once

#include "engine/tests/setting_probes.h"
#include "softbody/v1/session.pb.h"

namespace softbody::test {

inline v1::SessionSettings settings_with(const SettingSpec& spec, const SettingProbe& probe) {
  v1::SessionSettings s;
  const google::protobuf::FieldDescriptor* field = s.GetDescriptor()->FindFieldByName(spec.name);
  if (!field) throw std::logic_error(std::string("SessionSettings has no field ") + spec.name);
  const google::protobuf::Reflection* r = s.GetReflection();
  if (spec.type == SettingType::kChoice)
    r->SetString(&s, field, probe.choice);
  else if (spec.type == SettingType::kInteger)
    r->SetInt32(&s, field, static_cast<int>(probe.number));
  else
    r->SetDouble(&s, field, probe.number);
  return s;
}

}  // namespace softbody::test
