// The force a tool feels from the body and its derivatives with respect to the tool's position and
// velocity, evaluated against a frozen body state. These are the parts of the haptic coupling model
// (design guide §5): between two steps the force at a new tool pose is F + dF/dx dx + dF/dv dv, and
// re-evaluating these functions at the new pose gives the exact force for the frozen body.
#pragma once

#include <limits>
#include <span>

#include "engine/sim/external_forces.h"

namespace softbody {

struct ToolForce {
  Vec3 force = Vec3::Zero();      // on the tool [N] (the reaction of the forces on the vertices)
  Mat3 dforce_dx = Mat3::Zero();  // dF/dx_tool [N/m]
  Mat3 dforce_dv = Mat3::Zero();  // dF/dv_tool [N s/m]
  int contacts = 0;               // vertices touching the tool
  // How far the tool can move before a vertex enters or leaves contact: beyond it the linear
  // model is stale (Knott & Kuhlen 2015) [m].
  double validity_radius = std::numeric_limits<double>::infinity();
};

// A rigid tool shape (sphere, capsule, plate) with its reference point at `centre` moving with
// `velocity`, pressed against the vertices `candidates` (all vertices when empty) of a body at
// positions p and velocities v, with the penalty contact law of the step (seed 000 eq. 33).
ToolForce poke_force(const Obstacle& tool, const Vec3& centre, const Vec3& velocity,
                     const Vec3Array& p, const Vec3Array& v, std::span<const Index> candidates);

// A spring-damper from the tool point to a grabbed vertex: the reaction of the anchor
// h = -k (p - x) - c (v - x') that the step applies to the vertex.
ToolForce grab_force(Index vertex, double stiffness, double damping, const Vec3& x,
                     const Vec3& velocity, const Vec3Array& p, const Vec3Array& v);

}  // namespace softbody
