// Closed triangle surfaces for tests of mesh obstacles (engine/contact/rigid_surface.h): a box, an
// icosphere and a torus, wound outward, centred at the origin.
#pragma once

#include <cmath>
#include <map>
#include <numbers>

#include "engine/mesh/surface_mesh.h"

namespace softbody::test {

// The box |x| <= half.x, |y| <= half.y, |z| <= half.z.
inline SurfaceMesh box_surface(const Vec3& half) {
  SurfaceMesh s;
  for (int i = 0; i < 8; ++i)
    s.vertices.emplace_back(i & 1 ? half.x() : -half.x(), i & 2 ? half.y() : -half.y(),
                            i & 4 ? half.z() : -half.z());
  // Two triangles per face, counter-clockwise seen from outside.
  s.triangles = {{0, 4, 6}, {0, 6, 2}, {1, 3, 7}, {1, 7, 5},   // x = -, +
                 {0, 1, 5}, {0, 5, 4}, {2, 6, 7}, {2, 7, 3},   // y = -, +
                 {0, 2, 3}, {0, 3, 1}, {4, 5, 7}, {4, 7, 6}};  // z = -, +
  return s;
}

// An icosahedron subdivided `levels` times, its vertices on the sphere of `radius`.
inline SurfaceMesh icosphere(double radius, int levels) {
  SurfaceMesh s;
  const double t = (1 + std::sqrt(5.0)) / 2;
  const double base[12][3] = {{-1, t, 0}, {1, t, 0}, {-1, -t, 0}, {1, -t, 0},
                              {0, -1, t}, {0, 1, t}, {0, -1, -t}, {0, 1, -t},
                              {t, 0, -1}, {t, 0, 1}, {-t, 0, -1}, {-t, 0, 1}};
  for (const auto& v : base) s.vertices.push_back(Vec3(v[0], v[1], v[2]).normalized() * radius);
  s.triangles = {{0, 11, 5}, {0, 5, 1},  {0, 1, 7},   {0, 7, 10}, {0, 10, 11},
                 {1, 5, 9},  {5, 11, 4}, {11, 10, 2}, {10, 7, 6}, {7, 1, 8},
                 {3, 9, 4},  {3, 4, 2},  {3, 2, 6},   {3, 6, 8},  {3, 8, 9},
                 {4, 9, 5},  {2, 4, 11}, {6, 2, 10},  {8, 6, 7},  {9, 8, 1}};
  for (int level = 0; level < levels; ++level) {
    std::map<std::pair<Index, Index>, Index> middle;
    const auto mid = [&](Index a, Index b) {
      const auto key = std::minmax(a, b);
      const auto it = middle.find(key);
      if (it != middle.end()) return it->second;
      s.vertices.push_back(
          (s.vertices[static_cast<size_t>(a)] + s.vertices[static_cast<size_t>(b)]).normalized() *
          radius);
      return middle[key] = static_cast<Index>(s.vertices.size() - 1);
    };
    std::vector<Triangle> finer;
    for (const Triangle& f : s.triangles) {
      const Index ab = mid(f[0], f[1]), bc = mid(f[1], f[2]), ca = mid(f[2], f[0]);
      finer.insert(finer.end(), {{f[0], ab, ca}, {f[1], bc, ab}, {f[2], ca, bc}, {ab, bc, ca}});
    }
    s.triangles = std::move(finer);
  }
  return s;
}

// A torus about the y axis: its tube of radius `minor` around the circle of radius `major`,
// `around` segments along the circle and `across` around the tube.
inline SurfaceMesh torus(double major, double minor, int around, int across) {
  SurfaceMesh s;
  for (int i = 0; i < around; ++i)
    for (int j = 0; j < across; ++j) {
      const double u = 2 * std::numbers::pi * i / around, w = 2 * std::numbers::pi * j / across;
      const double ring = major + minor * std::cos(w);
      s.vertices.emplace_back(ring * std::cos(u), minor * std::sin(w), ring * std::sin(u));
    }
  const auto at = [&](int i, int j) {
    return static_cast<Index>(((i + around) % around) * across + (j + across) % across);
  };
  for (int i = 0; i < around; ++i)
    for (int j = 0; j < across; ++j) {
      s.triangles.push_back({at(i, j), at(i, j + 1), at(i + 1, j + 1)});
      s.triangles.push_back({at(i, j), at(i + 1, j + 1), at(i + 1, j)});
    }
  return s;
}

}  // namespace softbody::test
