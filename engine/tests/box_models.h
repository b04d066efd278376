// A simulation model of a generated box for the engine tests: StVK (total Lagrangian) with lumped
// masses, the vertices of one face set held (none for ""), gravity as given; the caller adds
// obstacles and step options.
#pragma once

#include <string>
#include <vector>

#include "engine/mesh/box_generator.h"
#include "engine/sim/simulation.h"

namespace softbody::test {

// A model of any mesh, the vertices `fixed` held (box_model's, and the self-contact tests' two
// blocks in one mesh).
inline SimulationModel mesh_model(const TetMesh& mesh, const Material& material,
                                  const std::vector<Index>& fixed, const Vec3& gravity) {
  SimulationModel m;
  m.topology = std::make_shared<const MeshTopology>(mesh);
  m.forces = make_force_model("stvk-tl", m.topology, mesh.vertices, material);
  m.material = material;
  m.rest = mesh.vertices;
  m.mass = lumped_masses(mesh, material.density);
  m.fixed.assign(mesh.vertices.size(), 0);
  for (Index v : fixed) m.fixed[static_cast<size_t>(v)] = 1;
  m.gravity = gravity;
  return m;
}

inline SimulationModel box_model(const BoxSpec& spec, const Material& material,
                                 const std::string& fixed_set, const Vec3& gravity) {
  const TetMesh mesh = make_box_mesh(spec);
  return mesh_model(mesh, material,
                    fixed_set.empty() ? std::vector<Index>{} : mesh.vertex_sets.at(fixed_set),
                    gravity);
}

}  // namespace softbody::test
