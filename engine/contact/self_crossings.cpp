// Self contact over a step (ContactDetector::detect_self_over_step): the discrete detections at
// the step's end and start, merged, and the continuous ones: boundary vertices that crossed a
// boundary face during the step, found as the first time the vertex and the moving triangle are
// coplanar with the vertex inside it, and boundary edges that crossed boundary edges, found as the
// first time the two moving edges are coplanar and meet (every vertex moving linearly: cubics in
// t). A segment and a triangle that start apart can come to intersect only through one of these
// two events, so together they see every surface crossing within a step that the discrete
// detection's reach misses.
#include <algorithm>
#include <cmath>

#include "engine/contact/contact_detection.h"

namespace softbody {
namespace {

const Vec3& at(const Vec3Array& x, Index v) {
  return x[static_cast<size_t>(v)];
}

// k0 + k1 t + k2 t^2 + k3 t^3.
struct Cubic {
  double k[4];
  double operator()(double t) const { return k[0] + t * (k[1] + t * (k[2] + t * k[3])); }
};

// (A(t) x B(t)) . C(t) for vectors moving linearly over the step, A(t) = a + t da (and so on): the
// coplanarity test of a vertex and a triangle, or of two edges' lines.
Cubic triple_product(const Vec3& a, const Vec3& da, const Vec3& b, const Vec3& db, const Vec3& c,
                     const Vec3& dc) {
  const Vec3 n0 = a.cross(b), n1 = a.cross(db) + da.cross(b), n2 = da.cross(db);
  return {{n0.dot(c), n0.dot(dc) + n1.dot(c), n1.dot(dc) + n2.dot(c), n2.dot(dc)}};
}

// Cuts (0, 1) at the cubic's critical points: `cuts` gets 0, the critical points inside, 1
// (ascending); returns how many. Between two cuts the cubic is monotone.
int monotone_pieces(const Cubic& f, double cuts[4]) {
  cuts[0] = 0;
  int count = 1;
  const double a = 3 * f.k[3], b = 2 * f.k[2], c = f.k[1];
  if (std::abs(a) > 1e-300) {
    const double disc = b * b - 4 * a * c;
    if (disc >= 0) {
      const double s = std::sqrt(disc);
      double r0 = (-b - s) / (2 * a), r1 = (-b + s) / (2 * a);
      if (r0 > r1) std::swap(r0, r1);
      for (double r : {r0, r1})
        if (r > 0 && r < 1) cuts[count++] = r;
    }
  } else if (std::abs(b) > 1e-300) {
    const double r = -c / b;
    if (r > 0 && r < 1) cuts[count++] = r;
  }
  cuts[count++] = 1;
  return count;
}

// The root of f in [lo, hi], where f is monotone and changes sign (bisection).
double root_between(const Cubic& f, double lo, double hi) {
  const bool rising = f(lo) < f(hi);
  for (int it = 0; it < 60 && hi - lo > 1e-14; ++it) {
    const double mid = 0.5 * (lo + hi);
    ((f(mid) < 0) == rising ? lo : hi) = mid;
  }
  return hi;
}

// The times in (0, 1] where `f` changes sign from positive to non-positive (at most two: a cubic
// has three roots), ascending, given f(0) > 0 and f(1) < 0.
int crossings(const Cubic& f, double times[2]) {
  double cuts[4];
  const int count = monotone_pieces(f, cuts);
  int found = 0;
  for (int i = 0; i + 1 < count && found < 2; ++i)
    if (f(cuts[i]) > 0 && f(cuts[i + 1]) <= 0)
      times[found++] = root_between(f, cuts[i], cuts[i + 1]);
  if (found == 0) times[found++] = 1;  // only through round-off at the cuts: f(1) < 0 holds one
  return found;
}

// Every time in (0, 1] where `f` changes sign, either way (at most three), ascending: two edges
// may meet where their lines become coplanar from either side (they turn within the step).
int sign_changes(const Cubic& f, double times[3]) {
  double cuts[4];
  const int count = monotone_pieces(f, cuts);
  int found = 0;
  for (int i = 0; i + 1 < count; ++i) {
    const double lo = f(cuts[i]), hi = f(cuts[i + 1]);
    if ((lo > 0 && hi <= 0) || (lo < 0 && hi >= 0))
      times[found++] = root_between(f, cuts[i], cuts[i + 1]);
  }
  return found;
}

}  // namespace

void ContactDetector::detect_self_over_step(const Vec3Array& start, const Vec3Array& x,
                                            double margin, double mu, bool continuous,
                                            std::vector<ContactPoint>& out) {
  const auto first_self = static_cast<std::ptrdiff_t>(out.size());
  detect_self(x, margin, mu, out);
  if (!out.empty()) {
    std::vector<ContactPoint> at_start;
    detect_self(start, margin, mu, at_start);
    for (const ContactPoint& c : at_start) {
      const auto begin = out.begin() + first_self;
      // A vertex has one vertex-face contact (its weight is 1); an edge pair is its four ends.
      const auto same = [&](const ContactPoint& d) {
        return c.weights[0] == 1 ? d.weights[0] == 1 && d.vertices[0] == c.vertices[0]
                                 : d.vertices == c.vertices;
      };
      if (std::none_of(begin, out.end(), same)) out.push_back(c);
    }
  }
  if (continuous) {
    detect_self_crossings(start, x, mu, out);
    detect_edge_crossings(start, x, mu, out);
  }
}

void ContactDetector::detect_self_crossings(const Vec3Array& start, const Vec3Array& x, double mu,
                                            std::vector<ContactPoint>& out) {
  // Vertices that already have a vertex-face self contact keep it.
  std::vector<char> has_contact(x.size(), 0);
  for (const ContactPoint& c : out)
    if (c.obstacle == ContactPoint::kSelf && c.weights[0] == 1)
      has_contact[static_cast<size_t>(c.vertices[0])] = 1;
  bvh_.refit_swept(start, x);
  const std::vector<Triangle>& triangles = bvh_.triangles();
  // A crossing's point must lie on the triangle to this fraction of an edge (round-off of the
  // root and of the closest point).
  const double on_face = 1e-9 * mean_edge_;
  for (Index v : topology_.boundary_vertices()) {
    if (has_contact[static_cast<size_t>(v)]) continue;
    const Vec3 &v0 = at(start, v), &v1 = at(x, v);
    Box3 box;
    box.grow(v0);
    box.grow(v1);
    for (Index u : surroundings_[static_cast<size_t>(v)]) near_mark_[static_cast<size_t>(u)] = v;
    ContactPoint best;
    double best_time = 2;
    bvh_.for_each_overlapping(box, [&](Index t) {
      const Triangle& tri = triangles[static_cast<size_t>(t)];
      for (Index corner : tri)
        if (near_mark_[static_cast<size_t>(corner)] == v) return;
      // f(t) = ((b - a) x (c - a)) . (v - a) along the step: twice the area times the signed
      // distance from the face (outward positive: boundary faces turn counter-clockwise outside).
      const Vec3 &a0 = at(start, tri[0]), &b0 = at(start, tri[1]), &c0 = at(start, tri[2]);
      const Vec3 &a1 = at(x, tri[0]), &b1 = at(x, tri[1]), &c1 = at(x, tri[2]);
      const Vec3 e0 = b0 - a0, g0 = c0 - a0, r0 = v0 - a0;
      const Cubic f = triple_product(e0, (b1 - a1) - e0, g0, (c1 - a1) - g0, r0, (v1 - a1) - r0);
      // From outside the face at the start to behind it at the end.
      if (!(f.k[0] > 0) || !(f(1) < 0)) return;
      double times[2];
      const int count = crossings(f, times);
      for (int i = 0; i < count; ++i) {
        const double time = times[i];
        if (!(time < best_time)) return;
        const auto along = [time](const Vec3& p, const Vec3& q) -> Vec3 {
          return p + time * (q - p);
        };
        const Vec3 vt = along(v0, v1), at_ = along(a0, a1), bt = along(b0, b1), ct = along(c0, c1);
        const std::array<double, 3> w = closest_on_triangle(vt, at_, bt, ct);
        if ((vt - (w[0] * at_ + w[1] * bt + w[2] * ct)).norm() > on_face) continue;  // beside it
        Vec3 normal = (b1 - a1).cross(c1 - a1);
        if (!(normal.norm() > 0)) normal = (bt - at_).cross(ct - at_);
        if (!(normal.norm() > 0)) return;  // collapsed all along: no direction to push in
        normal.normalize();
        best = self_vertex_face_contact(v, tri, w, normal, mu);
        best.gap = normal.dot(best.position(x));
        best.point = v1;
        best_time = time;
        return;
      }
    });
    if (best.count > 0) out.push_back(best);
  }
}

void ContactDetector::detect_edge_crossings(const Vec3Array& start, const Vec3Array& x, double mu,
                                            std::vector<ContactPoint>& out) {
  // Two edges whose ends moved less than half a mean edge between them end less deep than the
  // discrete detection's reach: convex creases crossing are found there at the step's end, and
  // other edges only cross where vertices meet faces. So only pairs that moved faster are
  // tested; a body at rest costs one pass over its edges.
  const double behind = 0.5 * mean_edge_;
  std::vector<double> moved(surface_edges_.size(), 0);
  double fastest = 0;
  for (size_t e = 0; e < surface_edges_.size(); ++e) {
    for (Index end : {surface_edges_[e].a, surface_edges_[e].b})
      moved[e] = std::max(moved[e], (at(x, end) - at(start, end)).norm());
    fastest = std::max(fastest, moved[e]);
  }
  if (!(2 * fastest >= behind)) return;
  // An edge with an end in a vertex-face self contact (as the vertex) is held there, and a pair
  // already in an edge-edge contact keeps it: a second row for the same meeting would make W
  // nearly singular.
  std::vector<char> held(x.size(), 0);
  std::vector<std::array<Index, 4>> pairs;
  for (const ContactPoint& c : out) {
    if (c.obstacle != ContactPoint::kSelf) continue;
    if (c.weights[0] == 1) {
      held[static_cast<size_t>(c.vertices[0])] = 1;
    } else if (c.count == 4) {
      std::array<Index, 4> v = c.vertices;
      std::sort(v.begin(), v.end());
      pairs.push_back(v);
    }
  }
  // The BVH holds the faces' swept boxes (detect_self_crossings refitted it). Each edge's own
  // swept box, to pass over the far edges a query's faces bring that the near edge's path does
  // not meet, and which near edge last looked at each far edge (an edge borders two faces).
  const double on_edge = 1e-9 * mean_edge_;
  std::vector<Box3> swept(surface_edges_.size());
  for (size_t e = 0; e < surface_edges_.size(); ++e)
    for (const Vec3Array* at_time : {&start, &x})
      for (Index end : {surface_edges_[e].a, surface_edges_[e].b}) swept[e].grow(at(*at_time, end));
  std::vector<Index> seen_by(surface_edges_.size(), -1);
  for (size_t ei = 0; ei < surface_edges_.size(); ++ei) {
    const SurfaceEdge& near = surface_edges_[ei];
    if (held[static_cast<size_t>(near.a)] || held[static_cast<size_t>(near.b)]) continue;
    if (!(moved[ei] + fastest >= behind)) continue;
    const auto i = static_cast<Index>(ei);
    const Vec3 &p0s = at(start, near.a), &p1s = at(start, near.b);
    const Vec3 &p0e = at(x, near.a), &p1e = at(x, near.b);
    const Box3& box = swept[ei];
    // The near edge's own surroundings (sorted lists: looked up only for the few far edges whose
    // path meets the near edge's box, instead of marking them for every edge).
    const auto surrounds = [&](Index v) {
      for (Index end : {near.a, near.b}) {
        const std::vector<Index>& around = surroundings_[static_cast<size_t>(end)];
        if (std::binary_search(around.begin(), around.end(), v)) return true;
      }
      return false;
    };
    ContactPoint best;
    double best_time = 2;
    bvh_.for_each_overlapping(box, [&](Index t) {
      for (Index j : triangle_edges_[static_cast<size_t>(t)]) {
        if (j <= i) continue;  // each pair once; -1 (a non-manifold edge) never passes
        if (seen_by[static_cast<size_t>(j)] == i) continue;
        seen_by[static_cast<size_t>(j)] = i;
        if (!(moved[ei] + moved[static_cast<size_t>(j)] >= behind)) continue;
        if (!box.overlaps(swept[static_cast<size_t>(j)])) continue;
        const SurfaceEdge& far = surface_edges_[static_cast<size_t>(j)];
        if (held[static_cast<size_t>(far.a)] || held[static_cast<size_t>(far.b)]) continue;
        if (surrounds(far.a) || surrounds(far.b)) continue;
        std::array<Index, 4> pair = {near.a, near.b, far.a, far.b};
        std::sort(pair.begin(), pair.end());
        if (std::find(pairs.begin(), pairs.end(), pair) != pairs.end()) continue;
        const Vec3 &q0s = at(start, far.a), &q1s = at(start, far.b);
        const Vec3 &q0e = at(x, far.a), &q1e = at(x, far.b);
        // f(t) = ((p1 - p0) x (q1 - q0)) . (q0 - p0): zero where the lines are coplanar.
        const Vec3 d0 = p1s - p0s, g0 = q1s - q0s, r0 = q0s - p0s;
        const Cubic f =
            triple_product(d0, (p1e - p0e) - d0, g0, (q1e - q0e) - g0, r0, (q0e - p0e) - r0);
        // Each time the lines become coplanar (the edges may meet there), earliest first.
        double times[3];
        const int count = sign_changes(f, times);
        for (int c = 0; c < count; ++c) {
          const double time = times[c];
          if (!(time < best_time)) break;
          const auto along = [time](const Vec3& a, const Vec3& b) -> Vec3 {
            return a + time * (b - a);
          };
          const Vec3 p0 = along(p0s, p0e), p1 = along(p1s, p1e);
          const Vec3 q0 = along(q0s, q0e), q1 = along(q1s, q1e);
          double s, u;
          closest_segments(p0, p1, q0, q1, s, u);
          // Between the ends of both (an end that crossed is a vertex's event, against a face).
          if (!(s > 1e-9 && s < 1 - 1e-9 && u > 1e-9 && u < 1 - 1e-9)) continue;
          if (((p0 + s * (p1 - p0)) - (q0 + u * (q1 - q0))).norm() > on_edge) continue;  // apart
          // The normal across both edges at the step's end, on the side the near edge started.
          const Vec3 near_dir = p1e - p0e, far_dir = q1e - q0e;
          Vec3 normal = near_dir.cross(far_dir);
          if (!(normal.norm() > kCrossingSine * near_dir.norm() * far_dir.norm())) continue;
          normal.normalize();
          ContactPoint contact =
              self_edge_edge_contact(near.a, near.b, s, far.a, far.b, u, normal, mu);
          if (normal.dot(contact.position(start)) < 0) contact.normal = -normal;
          contact.gap = contact.normal.dot(contact.position(x));
          if (!(contact.gap < 0)) continue;  // turned rather than crossed: no direction to push in
          contact.point = p0e + s * (p1e - p0e);
          best = contact;
          best_time = time;
          break;
        }
      }
    });
    if (best.count > 0) out.push_back(best);
  }
}

}  // namespace softbody
