#include "engine/sim/surface_loads.h"

#include <algorithm>
#include <map>

namespace softbody {

double LoadCurve::at(double t) const {
  if (points.empty()) return 1;
  if (t <= points.front().first) return points.front().second;
  if (t >= points.back().first) return points.back().second;
  const auto next = std::upper_bound(points.begin(), points.end(), t,
                                     [](double x, const auto& point) { return x < point.first; });
  const auto& [t1, s1] = *next;
  const auto& [t0, s0] = *(next - 1);
  return s0 + (s1 - s0) * (t - t0) / (t1 - t0);
}

SurfaceLoad make_surface_load(std::vector<Triangle> faces, const Vec3Array& rest,
                              const Vec3& traction, double pressure, LoadCurve curve) {
  SurfaceLoad load;
  load.faces = std::move(faces);
  load.traction = traction;
  load.pressure = pressure;
  load.curve = std::move(curve);
  if (traction != Vec3::Zero()) {
    std::map<Index, Vec3> per_vertex;
    for (const Triangle& f : load.faces) {
      const double area =
          0.5 * (rest[static_cast<size_t>(f[1])] - rest[static_cast<size_t>(f[0])])
                    .cross(rest[static_cast<size_t>(f[2])] - rest[static_cast<size_t>(f[0])])
                    .norm();
      for (Index v : f) {
        auto [it, inserted] = per_vertex.try_emplace(v, Vec3::Zero());
        it->second += traction * (area / 3);
      }
    }
    load.dead_forces.assign(per_vertex.begin(), per_vertex.end());
  }
  return load;
}

void add_surface_loads(std::span<const SurfaceLoad> loads, const Vec3Array& p, double t,
                       ExternalForceOutput& out) {
  for (const SurfaceLoad& load : loads) {
    const double s = load.curve.at(t);
    if (s == 0) continue;
    for (const auto& [v, f] : load.dead_forces) {
      out.h[static_cast<size_t>(v)] += s * f;
      out.potential -= s * f.dot(p[static_cast<size_t>(v)]);
    }
    if (load.pressure == 0) continue;
    out.conservative = false;  // a pressure on an open surface has no potential
    for (const Triangle& f : load.faces) {
      const Vec3& a = p[static_cast<size_t>(f[0])];
      // Twice the current area times the outward normal; the pressure pushes inward.
      const Vec3 area_normal =
          (p[static_cast<size_t>(f[1])] - a).cross(p[static_cast<size_t>(f[2])] - a);
      const Vec3 share = -(s * load.pressure / 6) * area_normal;
      for (Index v : f) out.h[static_cast<size_t>(v)] += share;
    }
  }
}

void add_surface_load_stiffness(std::span<const SurfaceLoad> loads, const MeshTopology& topology,
                                const Vec3Array& p, double t, ExternalForceOutput& out) {
  const std::vector<EdgeVertices>& edges = topology.edges();
  for (const SurfaceLoad& load : loads) {
    const double s = load.curve.at(t);
    if (s == 0 || load.pressure == 0) continue;
    const double c = -s * load.pressure / 6;  // each vertex's share is c (p1 - p0) x (p2 - p0)
    for (const Triangle& f : load.faces) {
      // d(share)/dp_j = c S_j for every vertex of the face, S_j = [p_{j+2} - p_{j+1}]x.
      std::array<Mat3, 3> s_j;
      for (int j = 0; j < 3; ++j)
        s_j[static_cast<size_t>(j)] = cross_matrix(p[static_cast<size_t>(f[(j + 2) % 3])] -
                                                   p[static_cast<size_t>(f[(j + 1) % 3])]);
      for (int i = 0; i < 3; ++i) {
        const auto si = static_cast<size_t>(i);
        // J_ii = c S_i: skew, on the vertex block (which may be non-symmetric).
        out.k_h[static_cast<size_t>(f[i])] += c * s_j[si];
        const int j = (i + 1) % 3;
        const Index e = topology.find_edge(f[i], f[j]);
        if (e < 0) continue;
        // The pair's blocks J_ij = c S_j and J_ji = c S_i: their symmetric part,
        // (J_ij + J_ji^T) / 2 = c (S_j - S_i) / 2 seen from the edge's first vertex, and their skew
        // part, (J_ij - J_ji^T) / 2 = c (S_i + S_j) / 2 from either end (the S are skew).
        const bool forward = edges[static_cast<size_t>(e)][0] == f[i];
        const Mat3& sj = s_j[static_cast<size_t>(j)];
        const Mat3 block = 0.5 * c * (sj - s_j[si]);
        out.k_h_edges.emplace_back(e, forward ? block : Mat3(block.transpose()));
        out.k_h_edges_skew.emplace_back(e, 0.5 * c * (s_j[si] + sj));
      }
    }
  }
}

Vec3 total_surface_load(std::span<const SurfaceLoad> loads, const Vec3Array& p, double t) {
  ExternalForceOutput out;
  out.reset(p.size());
  add_surface_loads(loads, p, t, out);
  Vec3 total = Vec3::Zero();
  for (const Vec3& h : out.h) total += h;
  return total;
}

}  // namespace softbody
