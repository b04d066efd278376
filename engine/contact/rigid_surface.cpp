#include "engine/contact/rigid_surface.h"

#include <cmath>
#include <map>
#include <numbers>
#include <numeric>
#include <sstream>
#include <stdexcept>
#include <string>

#include "engine/contact/contact_detection.h"

namespace softbody {
namespace {

// Names faces and vertices as the file does (SurfaceMesh::face_lines, vertex_numbers_from_file).
struct Names {
  const SurfaceMesh& mesh;
  std::string face(size_t t) const {
    if (t >= mesh.face_lines.size()) return "face " + std::to_string(t + 1);
    return (mesh.faces_by_line ? "the face on line " : "triangle ") +
           std::to_string(mesh.face_lines[t]);
  }
  std::string vertex(Index v) const {
    if (mesh.vertex_numbers_from_file) return "vertex " + std::to_string(v + 1);
    return "the corner at " + position(v);
  }
  std::string edge(Index a, Index b) const {
    if (mesh.vertex_numbers_from_file)
      return "the edge between vertices " + std::to_string(a + 1) + " and " + std::to_string(b + 1);
    return "the edge between the corners at " + position(a) + " and " + position(b);
  }
  std::string position(Index v) const {
    if (v < 0 || static_cast<size_t>(v) >= mesh.vertices.size()) return "?";
    const Vec3& x = mesh.vertices[static_cast<size_t>(v)];
    std::ostringstream out;
    out.precision(9);
    out << "(" << x[0] << ", " << x[1] << ", " << x[2] << ")";
    return out.str();
  }
};

// Every edge in exactly two faces that run along it in opposite directions; throws naming the
// first edge that is not.
void check_closed_and_oriented(const std::vector<Triangle>& triangles, const Names& names) {
  // Directed edges (from, to) -> how many faces run along them.
  std::map<std::pair<Index, Index>, int> directed;
  for (const Triangle& tri : triangles)
    for (size_t k = 0; k < 3; ++k) ++directed[{tri[k], tri[(k + 1) % 3]}];
  for (const auto& [edge, count] : directed) {
    const auto reverse = directed.find({edge.second, edge.first});
    const int opposite = reverse == directed.end() ? 0 : reverse->second;
    if (count > 1)
      throw std::invalid_argument(names.edge(edge.first, edge.second) +
                                  " is run along in the same direction by " +
                                  std::to_string(count) +
                                  " faces: the surface is not consistently oriented (or not a "
                                  "manifold there)");
    if (opposite == 0)
      throw std::invalid_argument(names.edge(edge.first, edge.second) +
                                  " has a face on one side only: the surface is not closed (a "
                                  "rigid obstacle's mesh must enclose its volume)");
  }
}

// The enclosed volume x 6 (by the divergence theorem about each part's first corner: negative
// for a surface wound inward), when all its parts are wound one way. Throws
// naming a part that encloses nothing (a doubly covered sheet) or that is wound the other way
// from the rest: a surface whose sign flips by part has no inside to tell, and a hollow tool (a
// cavity wound inward inside an outward part) is not supported.
double enclosed_volume6(const Vec3Array& vertices, const std::vector<Triangle>& triangles,
                        const Names& names) {
  // Parts: faces joined through shared edges (two parts touching at a corner stay two).
  std::vector<size_t> parent(triangles.size());
  std::iota(parent.begin(), parent.end(), size_t{0});
  const auto root = [&](size_t f) {
    while (parent[f] != f) f = parent[f] = parent[parent[f]];
    return f;
  };
  std::map<std::pair<Index, Index>, size_t> face_of_edge;
  for (size_t t = 0; t < triangles.size(); ++t)
    for (size_t k = 0; k < 3; ++k) {
      const auto [it, first] =
          face_of_edge.try_emplace(std::minmax(triangles[t][k], triangles[t][(k + 1) % 3]), t);
      if (!first) parent[root(t)] = root(it->second);
    }
  struct Part {
    size_t first_face;
    Vec3 origin;
    double volume6 = 0;
    Box3 bounds;
  };
  std::map<size_t, Part> parts;
  for (size_t t = 0; t < triangles.size(); ++t) {
    const Triangle& tri = triangles[t];
    Part& part =
        parts.try_emplace(root(t), Part{t, vertices[static_cast<size_t>(tri[0])], 0, Box3{}})
            .first->second;
    Vec3 c[3];
    for (size_t k = 0; k < 3; ++k) {
      c[k] = vertices[static_cast<size_t>(tri[k])] - part.origin;
      part.bounds.grow(vertices[static_cast<size_t>(tri[k])]);
    }
    part.volume6 += c[0].dot(c[1].cross(c[2]));
  }
  double total = 0;
  const Part* outward = nullptr;
  const Part* inward = nullptr;
  for (const auto& [key, part] : parts) {
    const double size = (part.bounds.max - part.bounds.min).norm();
    if (!(std::abs(part.volume6) > 1e-9 * size * size * size))
      throw std::invalid_argument("the part of the surface with " + names.face(part.first_face) +
                                  " encloses no volume (a sheet covered from both sides?): a "
                                  "rigid obstacle's mesh must enclose its volume");
    (part.volume6 > 0 ? outward : inward) = &part;
    total += part.volume6;
  }
  if (outward && inward)
    throw std::invalid_argument(
        "the part of the surface with " + names.face(inward->first_face) +
        " is wound the other way from the part with " + names.face(outward->first_face) +
        ": wind every part outward (hollow obstacles, a cavity inside a part, are not supported)");
  return total;
}

}  // namespace

RigidSurface::RigidSurface(SurfaceMesh mesh) : vertices_(mesh.vertices), bvh_({}, {}) {
  const Names names{mesh};
  std::vector<Triangle>& triangles = mesh.triangles;
  if (triangles.size() < 4)
    throw std::invalid_argument("a closed surface needs at least 4 faces, this one has " +
                                std::to_string(triangles.size()));
  const auto n = static_cast<Index>(vertices_.size());
  for (size_t t = 0; t < triangles.size(); ++t) {
    for (Index v : triangles[t])
      if (v < 0 || v >= n)
        throw std::invalid_argument(names.face(t) + " names vertex " + std::to_string(v + 1) +
                                    " of " + std::to_string(n));
    const Vec3 &a = vertices_[static_cast<size_t>(triangles[t][0])],
               &b = vertices_[static_cast<size_t>(triangles[t][1])],
               &c = vertices_[static_cast<size_t>(triangles[t][2])];
    const double area2 = (b - a).cross(c - a).norm();
    const double scale =
        std::max({(b - a).squaredNorm(), (c - a).squaredNorm(), (c - b).squaredNorm()});
    // Zero area (relative to its longest edge): no normal, so no sign near it.
    if (!(area2 > 1e-12 * scale))
      throw std::invalid_argument(names.face(t) + " (" + names.vertex(triangles[t][0]) + ", " +
                                  names.vertex(triangles[t][1]) + ", " +
                                  names.vertex(triangles[t][2]) + ") has no area");
  }
  check_closed_and_oriented(triangles, names);
  // Wound inward as a whole: turned outward below (after the renumbering).
  const double volume6 = enclosed_volume6(vertices_, triangles, names);
  // Only the faces' vertices: an OBJ may list others (write_surface_obj lists a tetrahedral
  // mesh's interior ones), and every vertex is a corner the detection presses against the body.
  {
    std::vector<Index> renumbered(vertices_.size(), -1);
    Vec3Array used;
    for (Triangle& tri : triangles)
      for (Index& v : tri) {
        Index& to = renumbered[static_cast<size_t>(v)];
        if (to < 0) {
          to = static_cast<Index>(used.size());
          used.push_back(vertices_[static_cast<size_t>(v)]);
        }
        v = to;
      }
    vertices_ = std::move(used);
  }
  if (volume6 < 0)
    for (Triangle& tri : triangles) std::swap(tri[1], tri[2]);
  volume_ = std::abs(volume6) / 6;

  face_normal_.resize(triangles.size());
  vertex_normal_.assign(vertices_.size(), Vec3::Zero());
  std::map<std::pair<Index, Index>, Vec3> edge_sum;  // undirected edge -> sum of its face normals
  double edge_total = 0;
  for (size_t t = 0; t < triangles.size(); ++t) {
    const Triangle& tri = triangles[t];
    Vec3 corner[3];
    for (size_t k = 0; k < 3; ++k) corner[k] = vertices_[static_cast<size_t>(tri[k])];
    face_normal_[t] = (corner[1] - corner[0]).cross(corner[2] - corner[0]).normalized();
    for (size_t k = 0; k < 3; ++k) {
      const Vec3 e1 = corner[(k + 1) % 3] - corner[k], e2 = corner[(k + 2) % 3] - corner[k];
      const double angle = std::acos(std::clamp(e1.normalized().dot(e2.normalized()), -1.0, 1.0));
      vertex_normal_[static_cast<size_t>(tri[k])] += angle * face_normal_[t];
      // (Eigen's vectors start uninitialized: the entry is made zero first.)
      edge_sum.try_emplace(std::minmax(tri[k], tri[(k + 1) % 3]), Vec3::Zero()).first->second +=
          face_normal_[t];
      edge_total += e1.norm() / 2;  // each edge is seen from both its faces
    }
  }
  edge_normal_.resize(triangles.size());
  for (size_t t = 0; t < triangles.size(); ++t)
    for (size_t k = 0; k < 3; ++k)
      edge_normal_[t][k] = edge_sum.at(std::minmax(triangles[t][k], triangles[t][(k + 1) % 3]));
  sharp_.assign(vertices_.size(), 0);
  const double cos_sharp = std::cos(kSharpDegrees * std::numbers::pi / 180);
  for (size_t t = 0; t < triangles.size(); ++t)
    for (Index v : triangles[t])
      if (face_normal_[t].dot(vertex_normal_[static_cast<size_t>(v)].normalized()) < cos_sharp)
        sharp_[static_cast<size_t>(v)] = 1;
  for (const auto& [edge, sum] : edge_sum)
    // Two unit normals at angle a sum to 2 cos(a/2).
    if (sum.norm() < 2 * std::cos(kSharpDegrees * std::numbers::pi / 360))
      sharp_edges_.push_back(edge);
  mean_edge_ = edge_total / (1.5 * static_cast<double>(triangles.size()));
  for (const Triangle& tri : triangles)
    for (Index v : tri) bounds_.grow(vertices_[static_cast<size_t>(v)]);
  bvh_ = SurfaceBvh(std::move(triangles), vertices_);
}

Vec3 RigidSurface::pseudo_normal(Index t, const std::array<double, 3>& w) const {
  const auto ti = static_cast<size_t>(t);
  const int on = (w[0] != 0) + (w[1] != 0) + (w[2] != 0);
  if (on == 3) return face_normal_[ti];
  const Triangle& tri = bvh_.triangles()[ti];
  if (on == 1)
    for (size_t k = 0; k < 3; ++k)
      if (w[k] != 0) return vertex_normal_[static_cast<size_t>(tri[k])];
  // On edge k, the one between the two corners with weight (corners k and k + 1).
  for (size_t k = 0; k < 3; ++k)
    if (w[k] != 0 && w[(k + 1) % 3] != 0) return edge_normal_[ti][k];
  return face_normal_[ti];
}

RigidSurface::Closest RigidSurface::closest(const Vec3& p, double limit) const {
  Closest result;
  const std::vector<Triangle>& triangles = bvh_.triangles();
  std::array<double, 3> weights{};
  const auto point_of = [&](Index t, const std::array<double, 3>& w) {
    const Triangle& tri = triangles[static_cast<size_t>(t)];
    return Vec3(w[0] * vertices_[static_cast<size_t>(tri[0])] +
                w[1] * vertices_[static_cast<size_t>(tri[1])] +
                w[2] * vertices_[static_cast<size_t>(tri[2])]);
  };
  const Index best = bvh_.nearest(p, limit, [&](Index t) {
    const Triangle& tri = triangles[static_cast<size_t>(t)];
    const std::array<double, 3> w = closest_on_triangle(p, vertices_[static_cast<size_t>(tri[0])],
                                                        vertices_[static_cast<size_t>(tri[1])],
                                                        vertices_[static_cast<size_t>(tri[2])]);
    const double d = (p - point_of(t, w)).norm();
    return d;
  });
  if (best < 0) return result;
  const Triangle& tri = triangles[static_cast<size_t>(best)];
  weights = closest_on_triangle(p, vertices_[static_cast<size_t>(tri[0])],
                                vertices_[static_cast<size_t>(tri[1])],
                                vertices_[static_cast<size_t>(tri[2])]);
  result.triangle = best;
  result.weights = weights;
  result.point = point_of(best, weights);
  const Vec3 offset = p - result.point;
  const Vec3 pseudo = pseudo_normal(best, weights);
  const double length = offset.norm();
  const double sign = offset.dot(pseudo) < 0 ? -1.0 : 1.0;
  result.distance = sign * length;
  // On the surface (to rounding, relative to the mesh's size) the offset has no direction.
  if (length > 1e-12 * mean_edge_)
    result.normal = sign * offset / length;
  else
    result.normal = pseudo.normalized();
  return result;
}

}  // namespace softbody
