#include "engine/io/io_util.h"

#include <cerrno>
#include <cstring>

#include "engine/mesh/topology.h"

namespace softbody {

std::ofstream open_for_writing(const std::string& path, bool binary) {
  std::ofstream out(path, binary ? std::ios::binary | std::ios::out : std::ios::out);
  if (!out) throw MeshError(path, std::string("cannot open for writing: ") + std::strerror(errno));
  out.precision(17);  // round-trip exact doubles
  return out;
}

void finish_writing(std::ofstream& out, const std::string& path) {
  out.flush();
  if (!out) throw MeshError(path, "write failed (disk full or file system error)");
}

std::vector<Triangle> boundary_triangles(const std::vector<Tet>& tets, Index num_vertices) {
  TetMesh mesh;
  mesh.vertices.resize(static_cast<size_t>(num_vertices));
  mesh.tets = tets;
  return MeshTopology(mesh).boundary_faces();
}

}  // namespace softbody
