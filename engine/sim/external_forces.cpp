#include "engine/sim/external_forces.h"

#include <Eigen/Geometry>
#include <unsupported/Eigen/AutoDiff>

#include <algorithm>
#include <cmath>
#include <limits>
#include <type_traits>

namespace softbody {
namespace {

// Jacobians come from forward-mode automatic differentiation of the one force law below (Eigen's
// AutoDiff module), so every obstacle shape has exact K_H and B_H without hand-derived formulas.
using Derivatives = Eigen::Matrix<double, 6, 1>;  // d/dp (3), d/dv (3)
using Scalar = Eigen::AutoDiffScalar<Derivatives>;
using SVec3 = Eigen::Matrix<Scalar, 3, 1>;

// A mesh obstacle's signed distance and normal at p: the closest feature (face, edge or vertex)
// and the sign are found in doubles; the distance to that feature is then written in S, so the
// automatic derivatives are the field's within the feature's region (a face's plane, an edge's
// line, a vertex's point).
template <typename S>
bool mesh_distance_and_normal(const Obstacle& o, const Vec3& centre,
                              const Eigen::Matrix<S, 3, 1>& p, S& distance,
                              Eigen::Matrix<S, 3, 1>& normal) {
  using V = Eigen::Matrix<S, 3, 1>;
  if (!o.surface) return false;
  const RigidSurface& surface = *o.surface;
  Vec3 p_value;
  if constexpr (std::is_same_v<S, double>) {
    p_value = p;
  } else {
    for (int k = 0; k < 3; ++k) p_value[k] = p[k].value();
  }
  const Mat3& r = o.rotation;
  const RigidSurface::Closest c = surface.closest(r.transpose() * (p_value - centre));
  if (c.triangle < 0) return false;
  const V local = r.transpose().cast<S>() * (p - centre.cast<S>());
  const Triangle& tri = surface.triangles()[static_cast<size_t>(c.triangle)];
  const auto corner = [&](size_t k) -> const Vec3& {
    return surface.vertices()[static_cast<size_t>(tri[k])];
  };
  const int on = (c.weights[0] != 0) + (c.weights[1] != 0) + (c.weights[2] != 0);
  if (on == 3) {  // a face: the plane's distance
    const Vec3& n = surface.face_normal(c.triangle);
    const Vec3& a = corner(0);
    distance = n.cast<S>().dot(local - a.cast<S>());
    normal = (r * n).cast<S>();
    return true;
  }
  const double sign = c.distance < 0 ? -1.0 : 1.0;
  V nearest;
  if (on == 1) {
    size_t k = 0;
    while (c.weights[k] == 0) ++k;
    const Vec3& a = corner(k);
    nearest = a.cast<S>();
  } else {
    size_t k = 0;
    while (c.weights[k] == 0 || c.weights[(k + 1) % 3] == 0) ++k;
    const Vec3 a = corner(k), d = corner((k + 1) % 3) - a;
    const S t = d.cast<S>().dot(local - a.cast<S>()) / S(d.squaredNorm());
    nearest = a.cast<S>() + t * d.cast<S>();
  }
  const V offset = local - nearest;
  using std::sqrt;
  const S length = sqrt(offset.squaredNorm());
  if (!(length > S(1e-12 * surface.mean_edge()))) {  // on the surface: the pseudo-normal's side
    distance = S(0);
    normal = (r * c.normal).cast<S>();
    return true;
  }
  distance = S(sign) * length;
  normal = (r.cast<S>() * offset) * S(sign) / length;
  return true;
}

// Signed distance (positive outside) and outward unit normal of the obstacle at p.
template <typename S>
bool distance_and_normal(const Obstacle& o, const Vec3& centre, const Eigen::Matrix<S, 3, 1>& p,
                         S& distance, Eigen::Matrix<S, 3, 1>& normal) {
  using V = Eigen::Matrix<S, 3, 1>;
  const V c = centre.cast<S>();
  switch (o.shape) {
    case ObstacleShape::kHalfSpace:
    case ObstacleShape::kPlate: {
      normal = o.normal.cast<S>();
      distance = normal.dot(p - c);
      if (o.shape == ObstacleShape::kPlate) {
        // In-plane extent: two directions orthogonal to the normal.
        const auto [u, w] = plate_axes(o);
        using std::abs;
        if (abs(u.cast<S>().dot(p - c)) > S(o.half_extent[0]) ||
            abs(w.cast<S>().dot(p - c)) > S(o.half_extent[1]))
          return false;
      }
      return true;
    }
    case ObstacleShape::kSphere:
    case ObstacleShape::kCapsule: {
      V q = c;
      if (o.shape == ObstacleShape::kCapsule) {
        const V a = o.axis.cast<S>();
        S s = a.dot(p - c);
        if (s > S(o.half_length)) s = S(o.half_length);
        if (s < S(-o.half_length)) s = S(-o.half_length);
        q = c + s * a;
      }
      const V r = p - q;
      using std::sqrt;
      const S len = sqrt(r.squaredNorm());
      if (!(len > S(0))) return false;  // at the axis: no defined normal
      normal = r / len;
      distance = len - S(o.radius);
      return true;
    }
    case ObstacleShape::kMesh:
      return mesh_distance_and_normal(o, centre, p, distance, normal);
  }
  return false;
}

// Seed 000 eq. 33 in vector form: penetration depth d, relative velocity u = v - V,
// force = n (K_N d - C_N u.n) - C_T d (u - (u.n) n).
template <typename S>
bool contact_law(const Obstacle& o, const Vec3& centre, const Vec3& surface_velocity,
                 const Eigen::Matrix<S, 3, 1>& p, const Eigen::Matrix<S, 3, 1>& v,
                 Eigen::Matrix<S, 3, 1>& force, S& depth) {
  S distance;
  Eigen::Matrix<S, 3, 1> n;
  if (!distance_and_normal(o, centre, p, distance, n) || !(distance < S(0))) return false;
  depth = -distance;
  const Eigen::Matrix<S, 3, 1> u = v - surface_velocity.cast<S>();
  const S un = u.dot(n);
  force = n * (S(o.contact.stiffness) * depth - S(o.contact.damping) * un) -
          S(o.contact.friction) * depth * (u - un * n);
  return true;
}

}  // namespace

void ExternalForceOutput::reset(size_t num_vertices) {
  h.assign(num_vertices, Vec3::Zero());
  k_h.assign(num_vertices, Mat3::Zero());
  b_h.assign(num_vertices, Mat3::Zero());
  k_h_edges.clear();
  k_h_edges_skew.clear();
  phi.assign(num_vertices, Vec3::Zero());
  contacts = 0;
  potential = 0;
  conservative = true;
}

bool contact_force(const Obstacle& obstacle, const Vec3& centre, const Vec3& surface_velocity,
                   const Vec3& p, const Vec3& v, Vec3& force, Mat3& dforce_dp, Mat3& dforce_dv,
                   double* depth) {
  // Most vertices are outside every obstacle: decide that in doubles (the same arithmetic as the
  // derivatives' values), without automatic differentiation's sixfold work.
  double distance;
  Vec3 normal;
  if (!distance_and_normal<double>(obstacle, centre, p, distance, normal) || !(distance < 0)) {
    force.setZero();
    dforce_dp.setZero();
    dforce_dv.setZero();
    return false;
  }
  SVec3 ps, vs;
  for (int k = 0; k < 3; ++k) {
    ps[k] = Scalar(p[k], 6, k);
    vs[k] = Scalar(v[k], 6, 3 + k);
  }
  SVec3 f;
  Scalar d;
  if (!contact_law(obstacle, centre, surface_velocity, ps, vs, f, d)) {
    force.setZero();
    dforce_dp.setZero();
    dforce_dv.setZero();
    return false;
  }
  for (int r = 0; r < 3; ++r) {
    force[r] = f[r].value();
    const Derivatives& df = f[r].derivatives();
    if (df.size() == 0) {  // a constant component (no dependence recorded)
      dforce_dp.row(r).setZero();
      dforce_dv.row(r).setZero();
      continue;
    }
    dforce_dp.row(r) = df.head<3>().transpose();
    dforce_dv.row(r) = df.tail<3>().transpose();
  }
  if (depth) *depth = d.value();
  return true;
}

Mat3 obstacle_rotation(const Obstacle& o, double t) {
  if (o.orientation) return o.orientation->rotation(t);
  const double rate = o.spin.norm();
  if (!(rate > 0)) return Mat3::Identity();
  return Eigen::AngleAxisd(rate * t, o.spin / rate).toRotationMatrix();
}

Obstacle posed_at(const Obstacle& o, double t) {
  Obstacle posed = o;
  const Mat3 r = obstacle_rotation(o, t);
  posed.normal = r * o.normal;
  posed.axis = r * o.axis;
  posed.rotation = r * o.rotation;
  return posed;
}

std::pair<Vec3, Vec3> plate_axes(const Obstacle& o) {
  // Unturned (every still obstacle), the normal's own orthogonal exactly as before.
  const Vec3 u = o.rotation.isIdentity(0)
                     ? o.normal.unitOrthogonal()
                     : Vec3(o.rotation * (o.rotation.transpose() * o.normal).unitOrthogonal());
  return {u, o.normal.cross(u)};
}

ObstaclePose obstacle_pose(const Obstacle& o, double t) {
  return {o.trajectory ? o.trajectory->position(t) : Vec3::Zero(), obstacle_rotation(o, t)};
}

bool obstacle_moves(const Obstacle& o) {
  return !(o.trajectory && o.trajectory->still()) || !o.spin.isZero(0) || o.orientation != nullptr;
}

bool surface_distance(const Obstacle& obstacle, const Vec3& centre, const Vec3& p, double& distance,
                      Vec3& normal) {
  return distance_and_normal<double>(obstacle, centre, p, distance, normal);
}

double signed_distance(const Obstacle& obstacle, const Vec3& centre, const Vec3& p) {
  double distance;
  Vec3 normal;
  if (!distance_and_normal<double>(obstacle, centre, p, distance, normal))
    return std::numeric_limits<double>::infinity();
  return distance;
}

void evaluate_external_forces(std::span<const Anchor> anchors, std::span<const Obstacle> obstacles,
                              const std::vector<double>& mass, const Vec3& gravity,
                              const Vec3Array& p, double t, ExternalForceOutput& out) {
  out.reset(p.size());
  for (size_t i = 0; i < p.size(); ++i) {
    out.h[i] = mass[i] * gravity;
    out.potential -= mass[i] * gravity.dot(p[i]);
  }
  // All forces on a vertex must be expanded about the same velocity phi: first pick it (the
  // surface velocity of the first obstacle the vertex penetrates), then evaluate at v = phi. The
  // Taylor expansion h + T K_H v + B_H (v - phi) then restores the velocity terms linearly.
  std::vector<std::pair<Vec3, Vec3>> poses;  // centre and velocity of each obstacle at t
  for (const Obstacle& o : obstacles)
    poses.emplace_back(o.trajectory->position(t), o.trajectory->velocity(t));
  // Which vertices each obstacle holds, decided once here (in doubles, as contact_force decides
  // it): the force loop below then visits only those, instead of measuring every vertex's distance
  // to every obstacle a second time.
  const size_t n = p.size();
  std::vector<std::uint8_t> has_phi(n, 0), inside(obstacles.size() * n, 0);
  for (size_t k = 0; k < obstacles.size(); ++k) {
    for (size_t i = 0; i < n; ++i) {
      double distance;
      Vec3 normal;
      if (!distance_and_normal<double>(obstacles[k], poses[k].first, p[i], distance, normal) ||
          !(distance < 0))
        continue;
      inside[k * n + i] = 1;
      if (!has_phi[i]) {
        out.phi[i] = poses[k].second;
        has_phi[i] = 1;
      }
    }
  }
  for (size_t k = 0; k < obstacles.size(); ++k) {
    for (size_t i = 0; i < n; ++i) {
      if (!inside[k * n + i]) continue;
      Vec3 f;
      Mat3 dp, dv;
      double depth = 0;
      if (!contact_force(obstacles[k], poses[k].first, poses[k].second, p[i], out.phi[i], f, dp, dv,
                         &depth))
        continue;
      // At v = phi the force is K_N d n = -d(K_N d^2 / 2)/dp (a second obstacle moving at another
      // velocity adds velocity terms that the potential leaves out).
      out.potential += 0.5 * obstacles[k].contact.stiffness * depth * depth;
      out.h[i] += f;
      out.k_h[i] += dp;
      out.b_h[i] += dv;
      ++out.contacts;
    }
  }
  for (const Anchor& a : anchors) {
    const auto i = static_cast<size_t>(a.vertex);
    const Vec3 target = a.target->position(t), target_velocity = a.target->velocity(t);
    out.h[i] += -a.stiffness * (p[i] - target) - a.damping * (out.phi[i] - target_velocity);
    out.potential += 0.5 * a.stiffness * (p[i] - target).squaredNorm() +
                     a.damping * (out.phi[i] - target_velocity).dot(p[i]);
    out.k_h[i].diagonal().array() -= a.stiffness;
    out.b_h[i].diagonal().array() -= a.damping;
  }
}

}  // namespace softbody
