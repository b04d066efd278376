// The scene's probes (and softbody-sim static's --probe sets) in a command's JSON output: each
// probe's mean displacement at p under `key`, as {name: [x, y, z]}.
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "engine/scene/probe.h"

namespace softbody::cli {

inline void report_probes(nlohmann::ordered_json& out, const std::string& key,
                          const std::vector<Probe>& probes, const Vec3Array& p,
                          const Vec3Array& rest) {
  for (const Probe& probe : probes) {
    const Vec3 d = probe_displacement(probe, p, rest);
    out[key][probe.name] = {d.x(), d.y(), d.z()};
  }
}

}  // namespace softbody::cli
