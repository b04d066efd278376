// Basic numeric types shared by the whole engine. SI units everywhere (m, kg, s, N, Pa).
#pragma once

#include <Eigen/Core>
#include <Eigen/Geometry>
#include <array>
#include <cstdint>
#include <vector>

namespace softbody {

using Vec3 = Eigen::Vector3d;
using Mat3 = Eigen::Matrix3d;
using Vec3Array = std::vector<Vec3>;

// Indices are 32-bit: meshes beyond 2^31 vertices are far outside real-time work, and halving
// index storage matters for the memory-bound kernels.
using Index = std::int32_t;
using Tet = std::array<Index, 4>;
using Triangle = std::array<Index, 3>;
using EdgeVertices = std::array<Index, 2>;

// [w]x: the matrix with [w]x a = w x a.
inline Mat3 cross_matrix(const Vec3& w) {
  Mat3 m;
  m << 0, -w.z(), w.y(), w.z(), 0, -w.x(), -w.y(), w.x(), 0;
  return m;
}

struct BoundingBox {
  Vec3 min = Vec3::Zero();
  Vec3 max = Vec3::Zero();
  double diagonal() const { return (max - min).norm(); }
};

// Axis-aligned bounds of a point set (zero box for an empty set).
inline BoundingBox bounding_box(const Vec3Array& points) {
  BoundingBox b;
  if (points.empty()) return b;
  b.min = b.max = points.front();
  for (const Vec3& x : points) {
    b.min = b.min.cwiseMin(x);
    b.max = b.max.cwiseMax(x);
  }
  return b;
}

}  // namespace softbody
