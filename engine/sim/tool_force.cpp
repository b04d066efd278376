#include "engine/sim/tool_force.h"

#include <cmath>

namespace softbody {

ToolForce poke_force(const Obstacle& tool, const Vec3& centre, const Vec3& velocity,
                     const Vec3Array& p, const Vec3Array& v, std::span<const Index> candidates) {
  ToolForce out;
  auto visit = [&](size_t i) {
    const double distance = signed_distance(tool, centre, p[i]);
    if (std::isfinite(distance))
      out.validity_radius = std::min(out.validity_radius, std::abs(distance));
    Vec3 f;
    Mat3 df_dp, df_dv;
    if (!contact_force(tool, centre, velocity, p[i], v[i], f, df_dp, df_dv)) return;
    // The law depends on p - centre and v - velocity, so d/dcentre = -d/dp and d/dvelocity = -d/dv;
    // the tool feels -f.
    out.force -= f;
    out.dforce_dx += df_dp;
    out.dforce_dv += df_dv;
    ++out.contacts;
  };
  if (candidates.empty()) {
    for (size_t i = 0; i < p.size(); ++i) visit(i);
  } else {
    for (Index i : candidates) visit(static_cast<size_t>(i));
  }
  return out;
}

ToolForce grab_force(Index vertex, double stiffness, double damping, const Vec3& x,
                     const Vec3& velocity, const Vec3Array& p, const Vec3Array& v) {
  const auto i = static_cast<size_t>(vertex);
  ToolForce out;
  out.force = stiffness * (p[i] - x) + damping * (v[i] - velocity);
  out.dforce_dx = -stiffness * Mat3::Identity();
  out.dforce_dv = -damping * Mat3::Identity();
  out.contacts = 1;
  return out;
}

}  // namespace softbody
