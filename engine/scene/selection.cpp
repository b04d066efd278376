#include "engine/scene/selection.h"

namespace softbody {

std::vector<Index> select_vertices(JsonReader& r, const TetMesh& mesh) {
  std::vector<Index> out;
  if (r.has("set")) {
    std::string name = r.string("set", "");
    auto it = mesh.vertex_sets.find(name);
    if (it == mesh.vertex_sets.end()) r.fail("set", "the mesh has no vertex set '" + name + "'");
    out = it->second;
  } else if (r.has("box")) {
    JsonReader b = r.object("box");
    const Vec3 lo = b.vec3("min", Vec3::Zero(), 1), hi = b.vec3("max", Vec3::Zero(), 1);
    b.finish();
    for (Index v = 0; v < mesh.num_vertices(); ++v) {
      const Vec3& x = mesh.vertices[static_cast<size_t>(v)];
      if ((x.array() >= lo.array()).all() && (x.array() <= hi.array()).all()) out.push_back(v);
    }
  } else if (r.has("plane")) {
    JsonReader p = r.object("plane");
    const Vec3 point = p.vec3("point", Vec3::Zero(), 1);
    const Vec3 normal = p.vec3("normal", Vec3::UnitY()).normalized();
    const double distance = p.number("distance", 0, 1);
    p.finish();
    for (Index v = 0; v < mesh.num_vertices(); ++v) {
      if (normal.dot(mesh.vertices[static_cast<size_t>(v)] - point) <= distance) out.push_back(v);
    }
  } else {
    r.fail("", "a vertex selection needs set, box or plane");
  }
  return out;
}

}  // namespace softbody
