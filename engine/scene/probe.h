// A scene's probe: named vertices whose mean displacement softbody-sim reports.
#pragma once

#include <string>
#include <vector>

#include "engine/types.h"

namespace softbody {

struct Probe {
  std::string name;
  std::vector<Index> vertices;
};

// The mean displacement of a probe's vertices at p.
inline Vec3 probe_displacement(const Probe& probe, const Vec3Array& p, const Vec3Array& rest) {
  Vec3 sum = Vec3::Zero();
  for (Index v : probe.vertices) sum += p[static_cast<size_t>(v)] - rest[static_cast<size_t>(v)];
  return sum / static_cast<double>(probe.vertices.size());
}

}  // namespace softbody
