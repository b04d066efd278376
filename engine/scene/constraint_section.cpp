#include "engine/scene/constraint_section.h"

#include <limits>

#include "engine/scene/obstacle_section.h"
#include "engine/scene/selection.h"

namespace softbody {

std::vector<std::uint8_t> read_fixed(JsonReader& root, const TetMesh& mesh) {
  const std::string& source = root.source();
  const double length = root.length();
  std::vector<std::uint8_t> fixed_out;
  fixed_out.assign(mesh.vertices.size(), 0);
  if (root.has("fixed")) {
    const nlohmann::json& fixed = root.array("fixed");
    for (size_t i = 0; i < fixed.size(); ++i) {
      JsonReader f = element_reader(fixed[i], "/fixed", i, source, length);
      for (Index v : select_vertices(f, mesh)) fixed_out[static_cast<size_t>(v)] = 1;
      f.finish();
    }
  }
  if (std::none_of(fixed_out.begin(), fixed_out.end(), [](std::uint8_t f) { return f != 0; }))
    fixed_out.clear();
  return fixed_out;
}

std::vector<Anchor> read_anchors(JsonReader& root, const TetMesh& mesh,
                                 const MeshPermutation& permutation) {
  const std::string& source = root.source();
  const double length = root.length();
  std::vector<Anchor> anchors_out;
  if (root.has("anchors")) {
    const nlohmann::json& anchors = root.array("anchors");
    for (size_t i = 0; i < anchors.size(); ++i) {
      JsonReader a = element_reader(anchors[i], "/anchors", i, source, length);
      std::vector<Index> vertices;
      if (a.has("vertex")) {
        const int v = a.integer("vertex", -1);
        if (v < 0 || v >= mesh.num_vertices()) a.fail("vertex", "no vertex " + std::to_string(v));
        vertices.push_back(permutation.new_of_old_vertex[static_cast<size_t>(v)]);
      } else if (a.has("nearest")) {
        const Vec3 x = a.vec3("nearest", Vec3::Zero(), 1);
        Index best = 0;
        for (Index v = 1; v < mesh.num_vertices(); ++v) {
          if ((mesh.vertices[static_cast<size_t>(v)] - x).squaredNorm() <
              (mesh.vertices[static_cast<size_t>(best)] - x).squaredNorm())
            best = v;
        }
        vertices.push_back(best);
      } else if (a.has("select")) {
        JsonReader selection = a.object("select");
        vertices = select_vertices(selection, mesh);
        selection.finish();
      } else {
        a.fail("", "an anchor needs vertex, nearest or select");
      }
      // Target: the vertex's rest position plus an optional offset trajectory.
      std::shared_ptr<const Trajectory> offset =
          a.has("offset") ? read_trajectory(a.object("offset")) : nullptr;
      const double stiffness = a.required_number("stiffness", -1),
                   damping = a.number("damping", 0, -1);
      const double release = a.number("release", std::numeric_limits<double>::infinity());
      if (!(release > 0)) a.fail("release", "must be > 0 (the time [s] the anchor lets go)");
      a.finish();
      for (Index v : vertices) {
        const Vec3 rest = mesh.vertices[static_cast<size_t>(v)];
        std::shared_ptr<const Trajectory> target =
            offset ? std::shared_ptr<const Trajectory>(make_offset_trajectory(offset, rest))
                   : std::shared_ptr<const Trajectory>(make_constant_trajectory(rest));
        anchors_out.push_back({v, target, stiffness, damping, release});
      }
    }
  }
  return anchors_out;
}

}  // namespace softbody
