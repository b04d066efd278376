// External forces on vertices with their exact Jacobians (seed 000 eqs. 4-5, 11): anchor springs,
// penalty contact with rigid obstacles (seed 000 eq. 33, velocity-dependent friction) and gravity.
// Every force here acts on a single vertex, so K_H = dh/dp and B_H = dh/dv are 3x3 blocks per
// vertex, added to the diagonal blocks of the system matrix.
#pragma once

#include <limits>
#include <memory>
#include <span>
#include <utility>
#include <vector>

#include "engine/contact/rigid_surface.h"
#include "engine/sim/orientation.h"
#include "engine/sim/trajectory.h"

namespace softbody {

struct ExternalForceOutput {
  Vec3Array h;            // force on each vertex
  std::vector<Mat3> k_h;  // dh/dp
  std::vector<Mat3> b_h;  // dh/dv
  // dh/dp between vertices (a follower load's, add_surface_load_stiffness): per entry a topology
  // edge E and its block dh_{V_e(E,0)} / dp_{V_e(E,1)}, symmetric in the sense of EdgeBlockMatrix
  // (the block at (V_e(E,1), V_e(E,0)) is its transpose); entries may repeat an edge (they add).
  std::vector<std::pair<Index, Mat3>> k_h_edges;
  // Their skew part, per entry an edge E and S(E) as in EdgeBlockMatrix::edge_skew (a follower
  // load's Jacobian is not symmetric); entries may repeat an edge (they add).
  std::vector<std::pair<Index, Mat3>> k_h_edges_skew;
  Vec3Array phi;     // expansion velocity phi_k: the velocity of the surface a vertex touches
  int contacts = 0;  // vertex-obstacle pairs in contact
  // V(p) with h = -dV/dp at v = phi: gravity -m g.p, contact K_N d^2 / 2, anchor springs, dead
  // loads. Newton's line search measures its progress with it (engine/sim/bdf_newton.h).
  double potential = 0;
  // False when a force without a potential is present (a follower load): then h != -dV/dp.
  bool conservative = true;
  void reset(size_t num_vertices);
};

// A spring-damper from a vertex to a (possibly moving) point: h = -k (p - a(t)) - c (v - a'(t)).
struct Anchor {
  Index vertex = 0;
  std::shared_ptr<const Trajectory> target = {};
  double stiffness = 0;
  double damping = 0;
  // The anchor acts in the steps that start before this time [s] (a grab released).
  double release = std::numeric_limits<double>::infinity();
};

// How an obstacle's contact is resolved: a penalty force (seed 000 eq. 33, in the step's forces)
// or constraints (engine/contact/: non-penetration and Coulomb friction, solved after the step's
// free motion).
enum class ContactModel { kPenalty, kConstraint };

struct ContactParameters {
  ContactModel model = ContactModel::kPenalty;
  double stiffness = 1e6;  // K_N [N/m] (penalty)
  double damping = 1e4;    // C_N [N s/m] (penalty)
  double friction = 1e7;   // C_T [N s/m^2]: tangential viscosity per unit penetration (penalty)
  double mu = 0;           // Coulomb's friction coefficient (constraint)
  // Constraint: a haptic tool is a massless proxy held to the device's pose by a spring of this
  // stiffness [N/m] (virtual coupling); the contact problem holds the proxy, not the device, out
  // of the body, so the force grows by at most this much per metre the device moves and a
  // desktop device (~1 kN/m) renders it stably. 0: rigid (the obstacle is where its pose says).
  double coupling_stiffness = 0;
  // Constraint: how much further than the scene's contact margin [m] to look for surface features
  // this obstacle may close on. A haptic tool on a slow link sets it: its client re-solves the
  // step's contact problem for the device's newest pose until the next reply, a round trip later,
  // and a face the tool reaches before then must already be among the problem's candidates, or
  // the pen sinks into a body the model does not hold and the next model pushes it out with
  // energy the user never put in. Candidates that stay apart cost rows, never force.
  double reach = 0;
};

enum class ObstacleShape { kHalfSpace, kPlate, kSphere, kCapsule, kMesh };

// A rigid obstacle moving by translation along its trajectory (the position of its reference
// point). Half-space and plate: the surface through the reference point with outward `normal`;
// a plate is a half-space limited to |u| <= half_extent[0], |w| <= half_extent[1] in its plane.
// Sphere: centre and radius. Capsule: segment centre +- half_length * axis, radius.
// Mesh: a closed triangle surface (`surface`, in its own frame: the reference point at its
// origin), at centre + rotation * x.
struct Obstacle {
  ObstacleShape shape = ObstacleShape::kHalfSpace;
  Vec3 normal = Vec3::UnitY();
  Vec3 axis = Vec3::UnitX();
  double radius = 0;
  double half_length = 0;
  std::array<double, 2> half_extent = {0, 0};
  std::shared_ptr<const Trajectory> trajectory = {};
  ContactParameters contact = {};
  // Angular velocity about the reference point [rad/s] (constraint contact only): `normal` and
  // `axis` are the obstacle's at t = 0, turned by R(t) = exp(t [spin]x) after (a rotating grasp).
  Vec3 spin = Vec3::Zero();
  // Keyframed rotations instead of a spin (constraint contact only); null: the spin's.
  std::shared_ptr<const OrientationTrajectory> orientation = {};
  std::shared_ptr<const RigidSurface> surface = {};  // kMesh's shape
  // The turn from the obstacle's own frame at this moment (posed_at sets it; identity unposed):
  // a mesh's points are at centre + rotation * x.
  Mat3 rotation = Mat3::Identity();
};

// The obstacle's rotation at time t: its orientation keyframes', or its spin's (identity without
// either).
Mat3 obstacle_rotation(const Obstacle& obstacle, double t);
// The obstacle as it is at time t: its normal, axis and rotation turned by obstacle_rotation.
Obstacle posed_at(const Obstacle& obstacle, double t);
// A plate's in-plane unit directions (u along half_extent[0], w = normal x u along
// half_extent[1]): u is the unturned normal's Eigen::unitOrthogonal, turned with the plate, so a
// turning plate's extent turns with it. Also defined for a half-space (no extent).
std::pair<Vec3, Vec3> plate_axes(const Obstacle& obstacle);
// Where the obstacle's reference point is at time t and how it is turned from t = 0.
struct ObstaclePose {
  Vec3 position = Vec3::Zero();
  Mat3 rotation = Mat3::Identity();
};
ObstaclePose obstacle_pose(const Obstacle& obstacle, double t);
// Whether the obstacle ever moves or turns (its trajectory is not still, or it spins or is
// keyframed in orientation).
bool obstacle_moves(const Obstacle& obstacle);

// Contact force on one vertex at position p and velocity v from an obstacle whose reference point
// is at `centre` moving with `surface_velocity`; with its Jacobians and, when asked, the
// penetration depth. Returns false (and zero force) when the vertex does not penetrate.
bool contact_force(const Obstacle& obstacle, const Vec3& centre, const Vec3& surface_velocity,
                   const Vec3& p, const Vec3& v, Vec3& force, Mat3& dforce_dp, Mat3& dforce_dv,
                   double* depth = nullptr);

// Signed distance (positive outside) of p from the obstacle's surface with its reference point at
// `centre`, and the surface's outward unit normal there (from the obstacle towards p). False where
// they are undefined (outside a plate's extent, on a sphere's centre or a capsule's axis).
bool surface_distance(const Obstacle& obstacle, const Vec3& centre, const Vec3& p, double& distance,
                      Vec3& normal);

// Signed distance (positive outside) of p from the obstacle's surface with its reference point at
// `centre`; +infinity where it is undefined (outside a plate's extent, on a sphere's centre).
double signed_distance(const Obstacle& obstacle, const Vec3& centre, const Vec3& p);

// Fills `out` for positions p at time t: obstacles and anchors at time t, gravity as m g. The
// forces and Jacobians are evaluated at velocity phi (seed 000 eq. 14-16), which is set to the
// surface velocity for vertices in contact and zero elsewhere.
void evaluate_external_forces(std::span<const Anchor> anchors, std::span<const Obstacle> obstacles,
                              const std::vector<double>& mass, const Vec3& gravity,
                              const Vec3Array& p, double t, ExternalForceOutput& out);

}  // namespace softbody
