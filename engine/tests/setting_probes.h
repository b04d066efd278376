// Values to walk a live setting through its entry points with: each end of its range and one value
// outside each end (an open end is itself outside). Shared by the engine's and the server's
// table-driven tests.
#pragma once

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "engine/scene/settings_table.h"

namespace softbody::test {

struct SettingProbe {
  double number = 0;    // numbers and integers
  std::string choice;   // choices
  bool inside = false;  // the table accepts it
};

inline std::vector<SettingProbe> setting_probes(const SettingSpec& spec) {
  std::vector<SettingProbe> probes;
  if (spec.type == SettingType::kChoice) {
    for (const SettingChoice& c : spec.choices) probes.push_back({0, c.value, true});
    probes.push_back({0, "bogus", false});
    return probes;
  }
  const SettingRange& r = spec.range;
  const bool integer = spec.type == SettingType::kInteger;
  // A step outside a closed end: one for integers, a relative 1e-6 otherwise. Inside an open end:
  // a thousandth of the range (a value the physics accepts, not a denormal).
  auto outside = [&](double end, double direction) {
    return integer ? end + direction : end + direction * 1e-6 * std::max(1.0, std::fabs(end));
  };
  const double inward = 1e-3 * (r.hi - r.lo);
  probes.push_back({r.lo_open ? r.lo + inward : r.lo, "", true});
  probes.push_back({r.lo_open ? r.lo : outside(r.lo, -1), "", false});
  probes.push_back({r.hi_open ? r.hi - inward : r.hi, "", true});
  probes.push_back({r.hi_open ? r.hi : outside(r.hi, +1), "", false});
  return probes;
}

}  // namespace softbody::test
