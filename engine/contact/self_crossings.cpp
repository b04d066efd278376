// Self contact over a step (ContactDetector::detect_self_over_step): the discrete detections at
// the step's end and start, merged, and the continuous one: boundary vertices that crossed a
// boundary face during the step, found as the first time the vertex and the moving triangle are
// coplanar with the vertex inside it (every vertex moving linearly: a cubic in t).
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

// The times in (0, 1] where `f` changes sign from positive to non-positive (at most two: a cubic
// has three roots), ascending, given f(0) > 0 and f(1) < 0. The cubic is monotone between its
// critical points, so each piece holds at most one root and bisection finds it.
int crossings(const Cubic& f, double times[2]) {
  // Critical points: roots of k1 + 2 k2 t + 3 k3 t^2 inside (0, 1), ascending.
  double cuts[4] = {0, 1, 1, 1};
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
  int found = 0;
  for (int i = 0; i + 1 < count && found < 2; ++i) {
    double lo = cuts[i], hi = cuts[i + 1];
    if (!(f(lo) > 0 && f(hi) <= 0)) continue;
    for (int it = 0; it < 60 && hi - lo > 1e-14; ++it) {
      const double mid = 0.5 * (lo + hi);
      (f(mid) > 0 ? lo : hi) = mid;
    }
    times[found++] = hi;
  }
  if (found == 0) times[found++] = 1;  // only through round-off at the cuts: f(1) < 0 holds one
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
  if (continuous) detect_self_crossings(start, x, mu, out);
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
      const Vec3 e0 = b0 - a0, de = (b1 - a1) - e0;
      const Vec3 g0 = c0 - a0, dg = (c1 - a1) - g0;
      const Vec3 r0 = v0 - a0, dr = (v1 - a1) - r0;
      const Vec3 n0 = e0.cross(g0), n1 = e0.cross(dg) + de.cross(g0), n2 = de.cross(dg);
      const Cubic f{{n0.dot(r0), n0.dot(dr) + n1.dot(r0), n1.dot(dr) + n2.dot(r0), n2.dot(dr)}};
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

}  // namespace softbody
