// A rigid obstacle given as a closed triangle mesh (a tool or a fixture read from an OBJ or STL
// file, issue 22), in the obstacle's own frame: the signed distance of a point, its closest surface
// point and the outward normal of the distance field there. The sign comes from the angle-weighted
// pseudo-normal of the closest feature (Baerentzen and Aanaes, "Signed distance computation using
// the angle weighted pseudonormal", IEEE TVCG 11(3), 2005), which is exact for any closed,
// consistently oriented surface, convex or not; the closest triangle is found through a
// SurfaceBvh by branch and bound.
#pragma once

#include <cstdint>
#include <limits>
#include <utility>
#include <vector>

#include "engine/contact/surface_bvh.h"
#include "engine/mesh/surface_mesh.h"
#include "engine/types.h"

namespace softbody {

class RigidSurface {
 public:
  // Throws std::invalid_argument naming the fault (faces and vertices numbered from 1, as in the
  // file) unless the surface is closed (every edge in exactly two faces), consistently oriented
  // (the two faces run along a shared edge in opposite directions) and free of degenerate faces.
  // A surface wound inward (negative enclosed volume) is turned outward: CAD exports differ.
  explicit RigidSurface(SurfaceMesh mesh);

  struct Closest {
    double distance = std::numeric_limits<double>::infinity();  // signed: negative inside
    Vec3 point = Vec3::Zero();                                  // the closest surface point
    // The distance field's gradient at the query point: the unit direction from the closest point
    // towards it outside, away from it inside; the feature's pseudo-normal on the surface.
    Vec3 normal = Vec3::UnitY();
    Index triangle = -1;  // -1: no surface point within the limit
    // The closest point's barycentric weights in `triangle`: one or two are exactly 0 where it
    // lies on an edge or a vertex (the feature whose pseudo-normal gave the sign).
    std::array<double, 3> weights = {0, 0, 0};
  };
  // The surface point closest to p (both in the surface's frame), if one lies within `limit`.
  Closest closest(const Vec3& p, double limit = std::numeric_limits<double>::infinity()) const;

  const Vec3Array& vertices() const { return vertices_; }
  const std::vector<Triangle>& triangles() const { return bvh_.triangles(); }
  const Vec3& face_normal(Index t) const { return face_normal_[static_cast<size_t>(t)]; }
  const Box3& bounds() const { return bounds_; }
  double volume() const { return volume_; }
  double mean_edge() const { return mean_edge_; }
  // Whether the surface turns sharply at vertex v: some face around it is tilted by more than
  // kSharpDegrees from the vertex's pseudo-normal (a cube's corner: 54.7 degrees; a blade's edge:
  // more; a level-3 icosphere's vertices: under 7). A sharp vertex presses a body like a point.
  bool sharp(Index v) const { return sharp_[static_cast<size_t>(v)] != 0; }
  static constexpr double kSharpDegrees = 25;
  // The edges whose two faces meet at more than kSharpDegrees (a cube's edges, a blade's edge;
  // none on a level-3 icosphere), each once, ends ascending.
  const std::vector<std::pair<Index, Index>>& sharp_edges() const { return sharp_edges_; }

 private:
  // The outward pseudo-normal (not unit) of the feature the weights `w` of triangle t select.
  Vec3 pseudo_normal(Index t, const std::array<double, 3>& w) const;

  Vec3Array vertices_;
  SurfaceBvh bvh_;
  std::vector<Vec3> face_normal_;                 // unit, outward
  std::vector<Vec3> vertex_normal_;               // angle-weighted sums of face normals
  std::vector<std::array<Vec3, 3>> edge_normal_;  // per face, edge k (corners k, k+1): the sum of
                                                  // its two faces' normals
  std::vector<std::uint8_t> sharp_;               // per vertex
  std::vector<std::pair<Index, Index>> sharp_edges_;
  Box3 bounds_;
  double volume_ = 0;
  double mean_edge_ = 0;
};

}  // namespace softbody
