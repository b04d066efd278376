#include "engine/mesh/box_generator.h"

#include <algorithm>
#include <stdexcept>

namespace softbody {

TetMesh make_box_mesh(const BoxSpec& spec) {
  if (spec.nx < 1 || spec.ny < 1 || spec.nz < 1)
    throw std::invalid_argument("box: cell counts must be >= 1");
  if (!(spec.size.array() > 0).all()) throw std::invalid_argument("box: size must be positive");
  TetMesh mesh;
  const int px = spec.nx + 1, py = spec.ny + 1, pz = spec.nz + 1;
  auto id = [&](int i, int j, int k) { return static_cast<Index>(i + px * (j + py * k)); };
  for (int k = 0; k < pz; ++k) {
    for (int j = 0; j < py; ++j) {
      for (int i = 0; i < px; ++i) {
        mesh.vertices.push_back(spec.origin + Vec3(spec.size.x() * i / spec.nx,
                                                   spec.size.y() * j / spec.ny,
                                                   spec.size.z() * k / spec.nz));
        auto add = [&](const char* name, bool on) {
          if (on) mesh.vertex_sets[name].push_back(id(i, j, k));
        };
        add("xmin", i == 0);
        add("xmax", i == spec.nx);
        add("ymin", j == 0);
        add("ymax", j == spec.ny);
        add("zmin", k == 0);
        add("zmax", k == spec.nz);
      }
    }
  }
  // The six tetrahedra of a cube are the monotone paths from corner (0,0,0) to (1,1,1), one per
  // permutation of the axes.
  const std::array<std::array<int, 3>, 6> axis_orders = {
      {{0, 1, 2}, {0, 2, 1}, {1, 0, 2}, {1, 2, 0}, {2, 0, 1}, {2, 1, 0}}};
  for (int k = 0; k < spec.nz; ++k) {
    for (int j = 0; j < spec.ny; ++j) {
      for (int i = 0; i < spec.nx; ++i) {
        for (const auto& order : axis_orders) {
          std::array<int, 3> c = {i, j, k};
          Tet t;
          t[0] = id(c[0], c[1], c[2]);
          for (int step = 0; step < 3; ++step) {
            ++c[static_cast<size_t>(order[static_cast<size_t>(step)])];
            t[static_cast<size_t>(step) + 1] = id(c[0], c[1], c[2]);
          }
          if (six_signed_volume(mesh.vertices, t) < 0) std::swap(t[2], t[3]);
          mesh.tets.push_back(t);
        }
      }
    }
  }
  return mesh;
}

}  // namespace softbody
