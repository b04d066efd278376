#include "engine/contact/contact_detection.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <numbers>

namespace softbody {
namespace {

// Weights below this are the feature's boundary: the point lies on the edge or vertex opposite.
constexpr double kOnFeature = 1e-9;
// A self contact's offset from the face must be this close to the face's normal (cosine).
constexpr double kOverFace = 0.9;
// ... and the face's normal must oppose the vertex's outward normal by at least this (cosine).
constexpr double kFacing = 0.3;

const Vec3& at(const Vec3Array& x, Index v) {
  return x[static_cast<size_t>(v)];
}

// Barycentric weights of the triangle point closest to segment s0-s1.
std::array<double, 3> closest_to_segment(const Vec3& s0, const Vec3& s1, const Vec3& a,
                                         const Vec3& b, const Vec3& c) {
  const Vec3 corners[3] = {a, b, c};
  auto point = [&](const std::array<double, 3>& w) { return w[0] * a + w[1] * b + w[2] * c; };
  auto segment_distance = [&](const Vec3& q) {
    const Vec3 d = s1 - s0;
    const double len2 = d.squaredNorm();
    const double u = len2 > 0 ? std::clamp((q - s0).dot(d) / len2, 0.0, 1.0) : 0.0;
    return (q - (s0 + u * d)).norm();
  };
  std::array<double, 3> best = closest_on_triangle(s0, a, b, c);
  double best_distance = segment_distance(point(best));
  auto consider = [&](const std::array<double, 3>& w) {
    const double d = segment_distance(point(w));
    if (d < best_distance) {
      best_distance = d;
      best = w;
    }
  };
  consider(closest_on_triangle(s1, a, b, c));
  for (int e = 0; e < 3; ++e) {
    double s, t;
    closest_segments(s0, s1, corners[e], corners[(e + 1) % 3], s, t);
    std::array<double, 3> w = {0, 0, 0};
    w[static_cast<size_t>(e)] = 1 - t;
    w[static_cast<size_t>((e + 1) % 3)] = t;
    consider(w);
  }
  // The segment through the triangle's interior: distance 0 there.
  const Vec3 normal = (b - a).cross(c - a);
  const double h0 = normal.dot(s0 - a), h1 = normal.dot(s1 - a);
  if (h0 * h1 < 0) {
    const Vec3 crossing = s0 + h0 / (h0 - h1) * (s1 - s0);
    consider(closest_on_triangle(crossing, a, b, c));
  }
  return best;
}

}  // namespace

void closest_segments(const Vec3& p1, const Vec3& q1, const Vec3& p2, const Vec3& q2, double& s,
                      double& t) {
  const Vec3 d1 = q1 - p1, d2 = q2 - p2, r = p1 - p2;
  const double a = d1.squaredNorm(), e = d2.squaredNorm(), f = d2.dot(r);
  if (a <= 1e-300 && e <= 1e-300) {
    s = t = 0;
    return;
  }
  if (a <= 1e-300) {
    s = 0;
    t = std::clamp(f / e, 0.0, 1.0);
    return;
  }
  const double c = d1.dot(r);
  if (e <= 1e-300) {
    t = 0;
    s = std::clamp(-c / a, 0.0, 1.0);
    return;
  }
  const double b = d1.dot(d2), denom = a * e - b * b;
  s = denom > 0 ? std::clamp((b * f - c * e) / denom, 0.0, 1.0) : 0.0;
  t = (b * s + f) / e;
  if (t < 0) {
    t = 0;
    s = std::clamp(-c / a, 0.0, 1.0);
  } else if (t > 1) {
    t = 1;
    s = std::clamp((b - c) / a, 0.0, 1.0);
  }
}

bool contact_distance(const ContactPoint& c, const Obstacle& posed, const Vec3& centre,
                      const Vec3& at, double& distance, Vec3& normal) {
  if (!c.at_obstacle_point) return surface_distance(posed, centre, at, distance, normal);
  normal = c.normal;
  distance = normal.dot(at - (centre + posed.rotation * c.obstacle_point));
  return true;
}

void append_feature(const Triangle& tri, const std::array<double, 3>& w, double scale,
                    ContactPoint& c) {
  double total = 0;
  for (double weight : w)
    if (weight > kOnFeature) total += weight;
  for (size_t k = 0; k < 3; ++k) {
    if (w[k] <= kOnFeature) continue;
    const auto slot = static_cast<size_t>(c.count++);
    c.vertices[slot] = tri[k];
    c.weights[slot] = scale * w[k] / total;
  }
}

ContactPoint self_vertex_face_contact(Index v, const Triangle& tri, const std::array<double, 3>& w,
                                      const Vec3& normal, double mu) {
  ContactPoint contact;
  contact.obstacle = ContactPoint::kSelf;
  contact.mu = mu;
  contact.normal = normal;
  contact.vertices[0] = v;
  contact.weights[0] = 1;
  contact.count = 1;
  append_feature(tri, w, -1, contact);
  return contact;
}

ContactPoint self_edge_edge_contact(Index a, Index b, double s, Index c, Index d, double u,
                                    const Vec3& normal, double mu) {
  ContactPoint contact;
  contact.obstacle = ContactPoint::kSelf;
  contact.mu = mu;
  contact.normal = normal;
  contact.count = 4;
  contact.vertices = {a, b, c, d};
  contact.weights = {1 - s, s, -(1 - u), -u};
  return contact;
}

std::array<double, 3> closest_on_triangle(const Vec3& p, const Vec3& a, const Vec3& b,
                                          const Vec3& c) {
  const Vec3 ab = b - a, ac = c - a, ap = p - a;
  const double d1 = ab.dot(ap), d2 = ac.dot(ap);
  if (d1 <= 0 && d2 <= 0) return {1, 0, 0};
  const Vec3 bp = p - b;
  const double d3 = ab.dot(bp), d4 = ac.dot(bp);
  if (d3 >= 0 && d4 <= d3) return {0, 1, 0};
  const double vc = d1 * d4 - d3 * d2;
  if (vc <= 0 && d1 >= 0 && d3 <= 0) {
    const double v = d1 / (d1 - d3);
    return {1 - v, v, 0};
  }
  const Vec3 cp = p - c;
  const double d5 = ab.dot(cp), d6 = ac.dot(cp);
  if (d6 >= 0 && d5 <= d6) return {0, 0, 1};
  const double vb = d5 * d2 - d1 * d6;
  if (vb <= 0 && d2 >= 0 && d6 <= 0) {
    const double w = d2 / (d2 - d6);
    return {1 - w, 0, w};
  }
  const double va = d3 * d6 - d5 * d4;
  if (va <= 0 && (d4 - d3) >= 0 && (d5 - d6) >= 0) {
    const double w = (d4 - d3) / ((d4 - d3) + (d5 - d6));
    return {0, 1 - w, w};
  }
  const double denom = 1 / (va + vb + vc);
  const double v = vb * denom, w = vc * denom;
  return {1 - v - w, v, w};
}

ContactDetector::ContactDetector(const MeshTopology& topology, const Vec3Array& rest)
    : topology_(topology), bvh_(topology.boundary_faces(), rest) {
  // Surface edges and the faces on either side (an edge with other than two is left out of
  // crease contacts: the surface is not a manifold there).
  const std::vector<Triangle>& triangles = bvh_.triangles();
  std::map<std::pair<Index, Index>, std::vector<Index>> faces_of_edge;
  for (size_t t = 0; t < triangles.size(); ++t)
    for (size_t i = 0; i < 3; ++i)
      faces_of_edge[std::minmax(triangles[t][i], triangles[t][(i + 1) % 3])].push_back(
          static_cast<Index>(t));
  triangle_edges_.assign(triangles.size(), {-1, -1, -1});
  double total = 0;
  for (const auto& [ends, faces] : faces_of_edge) {
    total +=
        (rest[static_cast<size_t>(ends.first)] - rest[static_cast<size_t>(ends.second)]).norm();
    if (faces.size() != 2) continue;
    const auto index = static_cast<Index>(surface_edges_.size());
    surface_edges_.push_back({ends.first, ends.second, {faces[0], faces[1]}});
    for (Index t : faces)
      for (size_t i = 0; i < 3; ++i) {
        const Triangle& tri = triangles[static_cast<size_t>(t)];
        if (std::pair<Index, Index>(std::minmax(tri[i], tri[(i + 1) % 3])) == ends)
          triangle_edges_[static_cast<size_t>(t)][i] = index;
      }
  }
  mean_edge_ = faces_of_edge.empty() ? 0 : total / static_cast<double>(faces_of_edge.size());
  vertex_faces_.resize(rest.size());
  for (size_t t = 0; t < triangles.size(); ++t)
    for (Index v : triangles[t])
      vertex_faces_[static_cast<size_t>(v)].push_back(static_cast<Index>(t));
}

Vec3 ContactDetector::outward_normal(Index t, const ContactPoint& feature,
                                     const Vec3Array& x) const {
  const std::vector<Triangle>& triangles = bvh_.triangles();
  const auto face_normal = [&](Index f) -> Vec3 {
    const Triangle& tri = triangles[static_cast<size_t>(f)];
    const Vec3 n = (at(x, tri[1]) - at(x, tri[0])).cross(at(x, tri[2]) - at(x, tri[0]));
    const double length = n.norm();
    return length > 0 ? Vec3(n / length) : Vec3::Zero();
  };
  Vec3 sum = Vec3::Zero();
  if (feature.count == 2) {
    const Triangle& tri = triangles[static_cast<size_t>(t)];
    const auto ends = std::minmax(feature.vertices[0], feature.vertices[1]);
    for (size_t i = 0; i < 3; ++i) {
      const Index e = triangle_edges_[static_cast<size_t>(t)][i];
      if (e >= 0 && std::minmax(tri[i], tri[(i + 1) % 3]) == ends) {
        const SurfaceEdge& edge = surface_edges_[static_cast<size_t>(e)];
        sum = face_normal(edge.face[0]) + face_normal(edge.face[1]);
      }
    }
  } else if (feature.count == 1) {
    const Index v = feature.vertices[0];
    for (Index f : vertex_faces_[static_cast<size_t>(v)]) {
      const Triangle& tri = triangles[static_cast<size_t>(f)];
      const size_t k = static_cast<size_t>(std::find(tri.begin(), tri.end(), v) - tri.begin());
      const Vec3 a = at(x, tri[(k + 1) % 3]) - at(x, v), b = at(x, tri[(k + 2) % 3]) - at(x, v);
      const double angle = std::atan2(a.cross(b).norm(), a.dot(b));
      sum += angle * face_normal(f);
    }
  }
  const double length = sum.norm();
  return length > 0 ? Vec3(sum / length)
                    : face_normal(t);  // a face's inside, or a non-manifold edge
}

std::vector<ContactPoint> ContactDetector::detect(std::span<const Obstacle> obstacles,
                                                  std::span<const Vec3> centres, const Vec3Array& x,
                                                  double margin) {
  std::vector<ContactPoint> contacts;
  bool refitted = false;
  for (size_t i = 0; i < obstacles.size(); ++i) {
    const Obstacle& o = obstacles[i];
    if (o.shape == ObstacleShape::kSphere || o.shape == ObstacleShape::kCapsule ||
        o.shape == ObstacleShape::kMesh) {
      if (!refitted) bvh_.refit(x);
      refitted = true;
      if (o.shape == ObstacleShape::kMesh)
        detect_mesh(o, static_cast<int>(i), centres[i], x, margin + o.contact.reach, contacts);
      else
        detect_triangles(o, static_cast<int>(i), centres[i], x, margin + o.contact.reach, contacts);
    } else {
      detect_vertices(o, static_cast<int>(i), centres[i], x, margin + o.contact.reach, contacts);
    }
  }
  return contacts;
}

void ContactDetector::detect_vertices(const Obstacle& o, int index, const Vec3& centre,
                                      const Vec3Array& x, double margin,
                                      std::vector<ContactPoint>& out) const {
  for (Index v : topology_.boundary_vertices()) {
    double distance;
    Vec3 normal;
    if (!surface_distance(o, centre, at(x, v), distance, normal) || !(distance < margin)) continue;
    ContactPoint c;
    c.vertices = {v, -1, -1, -1};
    c.weights = {1, 0, 0, 0};
    c.count = 1;
    c.obstacle = index;
    c.point = at(x, v);
    c.normal = normal;
    c.gap = distance;
    c.mu = o.contact.mu;
    out.push_back(c);
  }
}

void ContactDetector::detect_triangles(const Obstacle& o, int index, const Vec3& centre,
                                       const Vec3Array& x, double margin,
                                       std::vector<ContactPoint>& out) const {
  const double reach = o.radius + margin;
  Box3 box;
  const Vec3 half_axis =
      o.shape == ObstacleShape::kCapsule ? Vec3(o.half_length * o.axis) : Vec3::Zero();
  box.grow(centre - half_axis);
  box.grow(centre + half_axis);
  box.min.array() -= reach;
  box.max.array() += reach;
  std::map<std::array<Index, 3>, ContactPoint> features;
  bvh_.query(box, [&](Index t) {
    const Triangle& tri = bvh_.triangles()[static_cast<size_t>(t)];
    const Vec3 &a = at(x, tri[0]), &b = at(x, tri[1]), &c = at(x, tri[2]);
    const std::array<double, 3> w =
        o.shape == ObstacleShape::kSphere
            ? closest_on_triangle(centre, a, b, c)
            : closest_to_segment(centre - half_axis, centre + half_axis, a, b, c);
    ContactPoint contact;
    append_feature(tri, w, 1, contact);
    add_feature_contact(o, index, centre, x, margin, contact, features);
  });
  std::vector<ContactPoint> candidates;
  for (const auto& [key, contact] : features) candidates.push_back(contact);
  keep_distinct(std::move(candidates), 0.25 * mean_edge_, out);
}

void ContactDetector::detect_mesh(const Obstacle& o, int index, const Vec3& centre,
                                  const Vec3Array& x, double margin,
                                  std::vector<ContactPoint>& out) const {
  if (!o.surface) return;  // a mesh obstacle without its surface touches nothing
  const RigidSurface& surface = *o.surface;
  const Mat3& r = o.rotation;
  // The obstacle's box in the world, grown by the margin.
  Box3 box;
  const Box3& own = surface.bounds();
  for (int corner = 0; corner < 8; ++corner)
    box.grow(centre + r * Vec3(corner & 1 ? own.max.x() : own.min.x(),
                               corner & 2 ? own.max.y() : own.min.y(),
                               corner & 4 ? own.max.z() : own.min.z()));
  box.min.array() -= margin;
  box.max.array() += margin;
  std::map<std::array<Index, 3>, ContactPoint> features;
  // The body's boundary vertices near or inside the obstacle.
  for (Index v : topology_.boundary_vertices()) {
    if (box.squared_distance(at(x, v)) > 0) continue;
    ContactPoint contact;
    contact.vertices[0] = v;
    contact.weights[0] = 1;
    contact.count = 1;
    add_feature_contact(o, index, centre, x, margin, contact, features);
  }
  // The body's surface edges through or near the obstacle, at their deepest point: a body coarser
  // than the obstacle wraps it in chords, whose middles cut into it while their ends (vertices)
  // stay outside. Golden-section search of the distance along the edge (unimodal for a convex
  // obstacle; a local minimum for others).
  for (const SurfaceEdge& e : surface_edges_) {
    const Vec3 &a = at(x, e.a), &b = at(x, e.b);
    Box3 edge_box;
    edge_box.grow(a);
    edge_box.grow(b);
    if (!edge_box.overlaps(box)) continue;
    const auto distance_at = [&](double t) { return signed_distance(o, centre, a + t * (b - a)); };
    constexpr double kGolden = 0.6180339887498949;
    double lo = 0, hi = 1;
    double t1 = hi - kGolden * (hi - lo), t2 = lo + kGolden * (hi - lo);
    double d1 = distance_at(t1), d2 = distance_at(t2);
    while (hi - lo > 1e-3) {
      if (d1 < d2) {
        hi = t2;
        t2 = t1;
        d2 = d1;
        t1 = hi - kGolden * (hi - lo);
        d1 = distance_at(t1);
      } else {
        lo = t1;
        t1 = t2;
        d1 = d2;
        t2 = lo + kGolden * (hi - lo);
        d2 = distance_at(t2);
      }
    }
    const double t = (lo + hi) / 2;
    if (t < 0.01 || t > 0.99) continue;  // at an end: the vertex's own contact
    ContactPoint contact;
    contact.vertices[0] = e.a;
    contact.vertices[1] = e.b;
    contact.weights[0] = 1 - t;
    contact.weights[1] = t;
    contact.count = 2;
    add_feature_contact(o, index, centre, x, margin, contact, features);
  }
  std::vector<ContactPoint> candidates;
  for (const auto& [key, contact] : features) candidates.push_back(contact);
  // The obstacle's vertices against the body's faces: a corner (a blade's tip, a jaw's edge) or a
  // rounded end finer than the body's mesh presses between the body's vertices, where none of
  // them meets it. Each obstacle vertex near the body gets a contact at the body's surface point
  // nearest to it, held beyond the vertex along the face's normal (several on one face where
  // several corners press it: the merge below keeps the deepest of those close together).
  // (A vertex may lie deep inside the body: only those outside its whole box are left out.)
  Box3 body_box = bvh_.bounds();
  body_box.min.array() -= margin;
  body_box.max.array() += margin;
  const auto triangle_point = [&](Index t, const Vec3& q) {
    const Triangle& tri = bvh_.triangles()[static_cast<size_t>(t)];
    return closest_on_triangle(q, at(x, tri[0]), at(x, tri[1]), at(x, tri[2]));
  };
  // Where the body's surface point nearest to q (the obstacle's point `local` in its frame) is a
  // contact: held beyond the point along the face's normal where the obstacle is sharp there, by
  // the obstacle's distance where it is smooth.
  const auto press_point = [&](const Vec3& local, bool sharp) {
    const Vec3 q = centre + r * local;
    if (body_box.squared_distance(q) > 0) return;
    const Index t = bvh_.nearest(q, std::numeric_limits<double>::infinity(), [&](Index f) {
      const Triangle& tri = bvh_.triangles()[static_cast<size_t>(f)];
      const std::array<double, 3> w = triangle_point(f, q);
      return (q - (w[0] * at(x, tri[0]) + w[1] * at(x, tri[1]) + w[2] * at(x, tri[2]))).norm();
    });
    if (t < 0) return;
    const Triangle& tri = bvh_.triangles()[static_cast<size_t>(t)];
    ContactPoint contact;
    append_feature(tri, triangle_point(t, q), 1, contact);
    contact.obstacle = index;
    contact.mu = o.contact.mu;
    contact.point = contact.position(x);
    if (sharp) {
      // Along the body's normal there: the face's, or on an edge or at a vertex the faces' mean
      // (one of the faces there read a point outside an acute edge as pressing in).
      const Vec3 outward = outward_normal(t, contact, x);
      if (outward.isZero(0)) return;  // a collapsed face has no side to hold the point on
      contact.at_obstacle_point = true;
      contact.obstacle_point = local;
      contact.normal = -outward;
      contact.gap = contact.normal.dot(contact.point - q);
    } else if (!surface_distance(o, centre, contact.point, contact.gap, contact.normal)) {
      return;
    }
    if (contact.gap < margin) candidates.push_back(contact);
  };
  for (size_t k = 0; k < surface.vertices().size(); ++k)
    press_point(surface.vertices()[k], surface.sharp(static_cast<Index>(k)));
  // A sharp edge (a blade's) presses the faces between its ends too: points along it, at most
  // half a body edge apart.
  const double spacing = 0.5 * mean_edge_;
  for (const auto& [a, b] : surface.sharp_edges()) {
    const Vec3 &from = surface.vertices()[static_cast<size_t>(a)],
               &to = surface.vertices()[static_cast<size_t>(b)];
    const int pieces = static_cast<int>(std::ceil((to - from).norm() / spacing));
    for (int i = 1; i < pieces; ++i)
      press_point(from + (to - from) * (static_cast<double>(i) / pieces), true);
  }
  keep_distinct(std::move(candidates), 0.25 * mean_edge_, out);
}

void ContactDetector::add_feature_contact(const Obstacle& o, int index, const Vec3& centre,
                                          const Vec3Array& x, double margin, ContactPoint contact,
                                          std::map<std::array<Index, 3>, ContactPoint>& features) {
  // One contact per feature: the key is the feature's sorted vertices (-1 padded).
  std::array<std::pair<Index, double>, 3> sorted{};
  for (int k = 0; k < contact.count; ++k)
    sorted[static_cast<size_t>(k)] = {contact.vertices[static_cast<size_t>(k)],
                                      contact.weights[static_cast<size_t>(k)]};
  for (int i = 1; i < contact.count; ++i)  // insertion sort of at most 3
    for (int j = i; j > 0 && sorted[static_cast<size_t>(j)] < sorted[static_cast<size_t>(j - 1)];
         --j)
      std::swap(sorted[static_cast<size_t>(j)], sorted[static_cast<size_t>(j - 1)]);
  std::array<Index, 3> key = {-1, -1, -1};
  for (int k = 0; k < contact.count; ++k) {
    const auto s = static_cast<size_t>(k);
    contact.vertices[s] = key[s] = sorted[s].first;
    contact.weights[s] = sorted[s].second;
  }
  if (features.count(key)) return;
  contact.obstacle = index;
  contact.mu = o.contact.mu;
  contact.point = contact.position(x);
  double distance;
  Vec3 normal;
  if (!surface_distance(o, centre, contact.point, distance, normal) || !(distance < margin)) return;
  contact.normal = normal;
  contact.gap = distance;
  features.emplace(key, contact);
}

void ContactDetector::keep_distinct(std::vector<ContactPoint> candidates, double merge,
                                    std::vector<ContactPoint>& out) {
  // Every triangle's closest point is a contact, not only the surface's local minima of the
  // distance: the corrective motion reshapes the surface, and a surface held at its minima alone
  // tents into the obstacle around them (measured: a pressed sphere sank through the body).
  // Where the surface folds around the obstacle (a pressed edge), the faces on both sides have
  // their closest points a hair apart, and such nearly parallel constraints make W near-singular
  // (PGS then crawls): deepest first, a contact closer than `merge` (a quarter of the mean
  // boundary edge) to one already kept is the same contact.
  std::stable_sort(candidates.begin(), candidates.end(),
                   [](const ContactPoint& a, const ContactPoint& b) { return a.gap < b.gap; });
  const size_t first = out.size();
  for (const ContactPoint& c : candidates) {
    const bool duplicate = std::any_of(
        out.begin() + static_cast<std::ptrdiff_t>(first), out.end(),
        [&](const ContactPoint& kept) { return (kept.point - c.point).norm() < merge; });
    if (!duplicate) out.push_back(c);
  }
}

void ContactDetector::find_surroundings() {
  const MeshTopology& t = topology_;
  surroundings_.assign(static_cast<size_t>(t.num_vertices()), {});
  const auto neighbours = [&](Index v, std::vector<Index>& out) {
    for (const VertexEdge& e : t.vertex_edges(v)) {
      if (e.edge >= t.num_mesh_edges()) continue;
      const EdgeVertices& ends = t.edges()[static_cast<size_t>(e.edge)];
      out.push_back(ends[0] == v ? ends[1] : ends[0]);
    }
  };
  std::vector<Index> ring;
  for (Index v : t.boundary_vertices()) {
    std::vector<Index>& near = surroundings_[static_cast<size_t>(v)];
    near.push_back(v);
    ring.clear();
    neighbours(v, ring);
    for (Index u : ring) {
      near.push_back(u);
      neighbours(u, near);
    }
    std::sort(near.begin(), near.end());
    near.erase(std::unique(near.begin(), near.end()), near.end());
  }
}

void ContactDetector::detect_self(const Vec3Array& x, double margin, double mu,
                                  std::vector<ContactPoint>& out) {
  bvh_.refit(x);
  if (surroundings_.empty()) {
    find_surroundings();
    near_mark_.assign(x.size(), -1);
    edge_mark_.assign(x.size(), -1);
  }
  const double behind = 0.5 * mean_edge_;  // the deepest penetration taken as a contact
  // Outward vertex normals (area-weighted face normals) at x: a face can touch a vertex only
  // where the surfaces face each other.
  const std::vector<Triangle>& triangles = bvh_.triangles();
  std::vector<Vec3> vertex_normal(x.size(), Vec3::Zero()), face_normal(triangles.size());
  for (size_t t = 0; t < triangles.size(); ++t) {
    const Triangle& tri = triangles[t];
    const Vec3 area = (at(x, tri[1]) - at(x, tri[0])).cross(at(x, tri[2]) - at(x, tri[0]));
    for (Index corner : tri) vertex_normal[static_cast<size_t>(corner)] += area;
    const double length = area.norm();
    face_normal[t] =
        length > 0 ? Vec3(area / length) : Vec3::Constant(std::numeric_limits<double>::quiet_NaN());
  }
  const double reach = std::max(margin, behind);
  for (Index v : topology_.boundary_vertices()) {
    const Vec3& xv = at(x, v);
    Box3 box;
    box.grow(xv);
    box.min.array() -= reach;
    box.max.array() += reach;
    ContactPoint best;
    double best_distance = std::numeric_limits<double>::infinity();
    // The vertex's own surroundings, marked: most of what a query returns, skipped first.
    for (Index u : surroundings_[static_cast<size_t>(v)]) near_mark_[static_cast<size_t>(u)] = v;
    bvh_.for_each_overlapping(box, [&](Index t) {
      const Triangle& tri = triangles[static_cast<size_t>(t)];
      for (Index corner : tri)
        if (near_mark_[static_cast<size_t>(corner)] == v) return;
      const Vec3 &a = at(x, tri[0]), &b = at(x, tri[1]), &c = at(x, tri[2]);
      const std::array<double, 3> w = closest_on_triangle(xv, a, b, c);
      const Vec3 offset = xv - (w[0] * a + w[1] * b + w[2] * c);
      const double distance = offset.norm();
      if (!(distance < reach) || !(distance < best_distance)) return;
      const Vec3& normal = face_normal[static_cast<size_t>(t)];
      if (!normal.allFinite()) return;  // a collapsed face
      const double gap = normal.dot(offset);
      if (gap < -behind || !(gap < margin)) return;
      // The vertex must lie over the face (the offset along its normal): one beside it, off an
      // edge, belongs to the neighbouring face it does lie over; taking this face's normal would
      // forbid a slide along it (a block sliding off another caught on the side faces).
      if (!(std::abs(gap) >= kOverFace * distance)) return;
      // Surfaces that face the same way do not touch (a block's corner on another's: the side
      // face at the corner is as near as the top face it rests on).
      const Vec3& vertex_facing = vertex_normal[static_cast<size_t>(v)];
      if (!(normal.dot(vertex_facing) < -kFacing * vertex_facing.norm())) return;
      best = self_vertex_face_contact(v, tri, w, normal, mu);
      best.gap = gap;
      best.point = xv;
      best_distance = distance;
    });
    if (best.count > 0) out.push_back(best);
  }
  detect_crossing_creases(x, margin, mu, face_normal, out);
}

void ContactDetector::detect_crossing_creases(const Vec3Array& x, double margin, double mu,
                                              const std::vector<Vec3>& face_normal,
                                              std::vector<ContactPoint>& out) {
  const std::vector<Triangle>& triangles = bvh_.triangles();
  const double behind = 0.5 * mean_edge_, reach = std::max(margin, behind);
  const double flat = std::cos(kCreaseDegrees * std::numbers::pi / 180);
  // Convex creases at x, and their outward normals (the mean of their two faces').
  std::vector<Vec3> crease_normal(surface_edges_.size(), Vec3::Zero());
  std::vector<Index> creases;
  for (size_t e = 0; e < surface_edges_.size(); ++e) {
    const SurfaceEdge& edge = surface_edges_[e];
    const Vec3 &n0 = face_normal[static_cast<size_t>(edge.face[0])],
               &n1 = face_normal[static_cast<size_t>(edge.face[1])];
    if (!n0.allFinite() || !n1.allFinite() || n0.dot(n1) > flat) continue;
    // Convex: the far corner of the second face lies behind the first face's plane.
    const Triangle& other = triangles[static_cast<size_t>(edge.face[1])];
    Index far = other[0];
    for (Index corner : other)
      if (corner != edge.a && corner != edge.b) far = corner;
    if (!(n0.dot(at(x, far) - at(x, edge.a)) < 0)) continue;
    crease_normal[e] = (n0 + n1).normalized();
    creases.push_back(static_cast<Index>(e));
  }
  if (creases.empty()) return;
  // Faces with a crease among their edges: the BVH's faces without one are passed over at once.
  std::vector<char> has_crease(triangles.size(), 0);
  for (Index e : creases)
    for (Index f : surface_edges_[static_cast<size_t>(e)].face)
      has_crease[static_cast<size_t>(f)] = 1;
  for (Index i : creases) {
    const SurfaceEdge& near = surface_edges_[static_cast<size_t>(i)];
    const Vec3 &p0 = at(x, near.a), &p1 = at(x, near.b);
    const Vec3& near_normal = crease_normal[static_cast<size_t>(i)];
    Box3 box;
    box.grow(p0);
    box.grow(p1);
    box.min.array() -= reach;
    box.max.array() += reach;
    for (Index end : {near.a, near.b})
      for (Index u : surroundings_[static_cast<size_t>(end)])
        edge_mark_[static_cast<size_t>(u)] = i;
    ContactPoint best;
    double best_distance = std::numeric_limits<double>::infinity();
    bvh_.for_each_overlapping(box, [&](Index t) {
      if (!has_crease[static_cast<size_t>(t)]) return;
      for (Index j : triangle_edges_[static_cast<size_t>(t)]) {
        // Each pair once (the lower index is the near side; -1, a non-manifold edge, never
        // passes), creases only, facing each other.
        if (j <= i) continue;
        const Vec3& far_normal = crease_normal[static_cast<size_t>(j)];
        if (!(far_normal.dot(near_normal) < -kFacing)) continue;  // and so not a plain edge
        const SurfaceEdge& far = surface_edges_[static_cast<size_t>(j)];
        if (edge_mark_[static_cast<size_t>(far.a)] == i ||
            edge_mark_[static_cast<size_t>(far.b)] == i)
          continue;  // the near crease's own surroundings
        const Vec3 &q0 = at(x, far.a), &q1 = at(x, far.b);
        // The normal across both edges, on the far crease's outward side; nearly parallel edges
        // have none (and lie along each other's faces: their vertices meet those faces).
        const Vec3 across = (p1 - p0).cross(q1 - q0);
        if (!(across.norm() > kCrossingSine * (p1 - p0).norm() * (q1 - q0).norm())) continue;
        const Vec3 normal =
            across.dot(far_normal) >= 0 ? across.normalized() : -across.normalized();
        if (!(normal.dot(far_normal) > kFacing) || !(normal.dot(near_normal) < -kFacing)) continue;
        double s, u;
        closest_segments(p0, p1, q0, q1, s, u);
        // Between the ends of both: a crossing (an end's contact is a vertex's, against a face).
        if (!(s > kOnFeature && s < 1 - kOnFeature && u > kOnFeature && u < 1 - kOnFeature))
          continue;
        const Vec3 offset = (p0 + s * (p1 - p0)) - (q0 + u * (q1 - q0));
        const double distance = offset.norm();
        if (!(distance < reach) || !(distance < best_distance)) continue;
        const double gap = normal.dot(offset);
        if (gap < -behind || !(gap < margin)) continue;
        ContactPoint contact =
            self_edge_edge_contact(near.a, near.b, s, far.a, far.b, u, normal, mu);
        contact.gap = gap;
        contact.point = p0 + s * (p1 - p0);
        best = contact;
        best_distance = distance;
      }
    });
    if (best.count > 0) out.push_back(best);
  }
}

}  // namespace softbody
