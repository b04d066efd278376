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

}  // namespace softbody
