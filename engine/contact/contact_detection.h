// Contact detection for constraint contact (issue 22): the body's boundary against rigid
// obstacles. Spheres and capsules meet the boundary triangles (closest points through the
// SurfaceBvh, so a tool pressed between vertices meets the faces and edges there); a mesh obstacle
// meets the boundary vertices and, at each of its own vertices, the body's nearest surface point
// (a corner pressed between the body's vertices); half-spaces and plates meet boundary vertices (a
// flat obstacle touches a body first at its vertices). Each
// contact is a point of the surface given by barycentric weights on one feature (a vertex, an
// edge or a face), so its Jacobian J is constant within a step: P = sum_i w_i x_i.
#pragma once

#include <array>
#include <map>
#include <span>
#include <vector>

#include "engine/contact/surface_bvh.h"
#include "engine/mesh/topology.h"
#include "engine/sim/external_forces.h"

namespace softbody {

struct ContactPoint {
  static constexpr int kMaxVertices = 4;
  // The point is sum_i w_i x_i over `count` vertices, so J has w_i on vertex i.
  std::array<Index, kMaxVertices> vertices = {-1, -1, -1, -1};
  std::array<double, kMaxVertices> weights = {0, 0, 0, 0};
  int count = 0;
  int obstacle = 0;  // index into the obstacles detected against, or kSelf
  // A sharp point of a mesh obstacle (a corner, or a point of a sharp edge) pressed against the
  // body's surface at the point: the gap is measured from it along the fixed `normal` (the body
  // face's inward normal at detection), not by the obstacle's distance field, whose gradient
  // beside a sharp corner points across the corner's faces and would let the body slide around
  // it (contact_distance). `obstacle_point` is in the obstacle's own frame.
  bool at_obstacle_point = false;
  Vec3 obstacle_point = Vec3::Zero();
  Vec3 point = Vec3::Zero();    // the surface point at detection
  Vec3 normal = Vec3::UnitY();  // from the obstacle towards the body
  double gap = 0;               // signed distance at detection (negative: penetration)
  double mu = 0;
  // Self contact (obstacle kSelf): two features of the same body meet, and the point is their
  // difference, P = (near side) - (far side): a boundary vertex (weight +1) against a face, edge
  // or vertex (weights -w_i), or an edge (+w) against an edge (-w). The weights sum to zero, so a
  // rigid motion moves no self contact point; `normal` is the far side's outward normal.
  static constexpr int kSelf = -1;

  Vec3 position(const Vec3Array& x) const {
    Vec3 p = Vec3::Zero();
    for (int i = 0; i < count; ++i)
      p += weights[static_cast<size_t>(i)] *
           x[static_cast<size_t>(vertices[static_cast<size_t>(i)])];
    return p;
  }
};

class ContactDetector {
 public:
  ContactDetector(const MeshTopology& topology, const Vec3Array& rest);

  // Contacts of the body at `x` with the obstacles, their reference points at `centres`, that are
  // closer than `margin` [m] plus the obstacle's own `contact.reach` (or penetrate). One contact
  // per (obstacle, feature): triangles whose closest points fall on a shared edge or vertex give
  // that edge or vertex once.
  std::vector<ContactPoint> detect(std::span<const Obstacle> obstacles,
                                   std::span<const Vec3> centres, const Vec3Array& x,
                                   double margin);
  // Self contacts of the body at `x` (appended to `out`): each boundary vertex against the
  // boundary faces in front of it closer than `margin` or behind it by less than half a mean
  // boundary edge (a face further behind is the body's own far side, not a contact), the nearest
  // such face only. Faces with a corner within two mesh edges of the vertex are its own
  // surroundings and never contacts (their closeness is the mesh, not a fold).
  // And, where two convex creases of the surface (boundary edges whose faces meet at more than
  // kCreaseDegrees) cross, edge against edge: two ridges crossing touch between their vertices,
  // where no vertex meets a face. Flat or gently curved surfaces give no such pairs (their
  // vertex-face contacts already hold them, and near-duplicate rows would make W near-singular).
  void detect_self(const Vec3Array& x, double margin, double mu, std::vector<ContactPoint>& out);
  static constexpr double kCreaseDegrees = 45;
  // Two edges cross (and have a normal across both) where the sine of their angle exceeds this.
  static constexpr double kCrossingSine = 0.2;
  // Self contacts of a step that moved the body from `start` to `x` (appended to `out`, which
  // holds the step's other contacts): detect_self at x; where any contact may push (`out` or
  // those found at x are not empty), also at `start`, since a free motion drops every contact
  // force and parts pressed together (a vessel clamped shut) spring apart in it beyond the margin;
  // a pair found at both keeps x's feature and normal. With `continuous`, each boundary vertex
  // left without a vertex-face contact that crossed a boundary face from outside during the step
  // (every vertex moving linearly from start to x) gets one with that face: a vertex faster than
  // the margin plus half an edge per step passes detect_self's reach unseen. And each boundary
  // edge whose ends got no self contact that crossed another boundary edge between their ends
  // gets an edge-edge contact there (a ridge passing through a ridge, no vertex meeting a face).
  void detect_self_over_step(const Vec3Array& start, const Vec3Array& x, double margin, double mu,
                             bool continuous, std::vector<ContactPoint>& out);

 private:
  void detect_vertices(const Obstacle& o, int index, const Vec3& centre, const Vec3Array& x,
                       double margin, std::vector<ContactPoint>& out) const;
  void detect_triangles(const Obstacle& o, int index, const Vec3& centre, const Vec3Array& x,
                        double margin, std::vector<ContactPoint>& out) const;
  void detect_mesh(const Obstacle& o, int index, const Vec3& centre, const Vec3Array& x,
                   double margin, std::vector<ContactPoint>& out) const;
  // Adds `contact` (its feature's vertices and weights set) to `features` unless its feature is
  // there already or it lies `margin` or further outside the obstacle; sorts its vertices.
  static void add_feature_contact(const Obstacle& o, int index, const Vec3& centre,
                                  const Vec3Array& x, double margin, ContactPoint contact,
                                  std::map<std::array<Index, 3>, ContactPoint>& features);
  // Appends the candidates to `out`, deepest first, leaving out each one closer than `merge` to
  // one kept before it.
  static void keep_distinct(std::vector<ContactPoint> candidates, double merge,
                            std::vector<ContactPoint>& out);

  // The continuous half of detect_self_over_step (engine/contact/self_crossings.cpp): vertices
  // across faces, then edges across edges (each boundary edge whose ends have no self contact
  // yet, against the boundary edges of the faces its path sweeps: the earliest crossing in both
  // edges' interiors; its normal is across both edges at x, on the side the edge started on).
  void detect_self_crossings(const Vec3Array& start, const Vec3Array& x, double mu,
                             std::vector<ContactPoint>& out);
  void detect_edge_crossings(const Vec3Array& start, const Vec3Array& x, double mu,
                             std::vector<ContactPoint>& out);
  // The body's outward unit normal at the point of boundary face t that `feature` (append_feature's
  // corners of t) names, with the body at x: the face's normal inside it, the mean of the two
  // faces' normals on an edge, the angle-weighted mean of the faces around a vertex (Baerentzen
  // and Aanaes 2005: its sign tells inside from outside for a point whose nearest surface point
  // is there, which a single face's does not where the faces meet at an acute angle).
  Vec3 outward_normal(Index t, const ContactPoint& feature, const Vec3Array& x) const;
  // Fills surroundings_ (once, at the first detect_self).
  void find_surroundings();
  // The edge-edge half of detect_self; `face_normal` holds the boundary faces' unit normals at x.
  void detect_crossing_creases(const Vec3Array& x, double margin, double mu,
                               const std::vector<Vec3>& face_normal,
                               std::vector<ContactPoint>& out);

  const MeshTopology& topology_;
  SurfaceBvh bvh_;
  // Per boundary vertex, sorted: the vertices within two mesh edges of it, itself included.
  std::vector<std::vector<Index>> surroundings_;
  std::vector<Index> near_mark_;  // per vertex: the vertex whose surroundings it was marked in
  double mean_edge_ = 0;          // mean boundary edge length at rest [m]
  // Each boundary edge (ends ascending) and its two boundary faces (indices into the BVH's).
  struct SurfaceEdge {
    Index a, b;
    Index face[2];
  };
  std::vector<SurfaceEdge> surface_edges_;
  std::vector<std::array<Index, 3>> triangle_edges_;  // per boundary face: its surface edges
  std::vector<std::vector<Index>> vertex_faces_;      // per vertex: the boundary faces around it
  // Per vertex: the surface edge whose surroundings it was marked in.
  std::vector<Index> edge_mark_;
};

// The signed distance (negative: penetration) of contact `c`'s surface point, now at `at`, from
// its obstacle `posed` (reference point at `centre`), and the unit normal it is measured along
// (from the obstacle towards the body): surface_distance's, or for a mesh obstacle's sharp point
// (c.at_obstacle_point) the point's height over it along c.normal. False where
// surface_distance is undefined.
bool contact_distance(const ContactPoint& c, const Obstacle& posed, const Vec3& centre,
                      const Vec3& at, double& distance, Vec3& normal);

// Appends to `c` the feature of triangle `tri` that the point with barycentric weights `w` lies
// on: the corners whose weight exceeds 1e-9 (a point on an edge or at a vertex gives that edge or
// vertex), their weights renormalized to sum to `scale` (1 for a surface point; -1 for the far
// side of a self contact, whose point is a difference).
void append_feature(const Triangle& tri, const std::array<double, 3>& w, double scale,
                    ContactPoint& c);

// Self contact of boundary vertex v with the point of triangle `tri` at barycentric weights `w`
// (P = x_v - sum w_i x_i, append_feature's corners), the face's unit `normal`; gap and point unset.
ContactPoint self_vertex_face_contact(Index v, const Triangle& tri, const std::array<double, 3>& w,
                                      const Vec3& normal, double mu);

// Closest points of segments p1-q1 and p2-q2: parameters s, t in [0, 1] (Ericson, Real-Time
// Collision Detection, 5.1.9).
void closest_segments(const Vec3& p1, const Vec3& q1, const Vec3& p2, const Vec3& q2, double& s,
                      double& t);

// Self contact of edge (a, b) at parameter s (the near side) with edge (c, d) at parameter u:
// P = (1 - s) x_a + s x_b - (1 - u) x_c - u x_d, the unit `normal` across both; gap and point
// unset.
ContactPoint self_edge_edge_contact(Index a, Index b, double s, Index c, Index d, double u,
                                    const Vec3& normal, double mu);

// The point of triangle (a, b, c) closest to p, as barycentric weights (Ericson, Real-Time
// Collision Detection, 5.1.5).
std::array<double, 3> closest_on_triangle(const Vec3& p, const Vec3& a, const Vec3& b,
                                          const Vec3& c);

}  // namespace softbody
