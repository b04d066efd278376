#include "server/api/obstacle_convert.h"

#include <Eigen/Geometry>

#include "engine/contact/rigid_surface.h"
#include "server/api/proto_convert.h"

namespace softbody::server {
namespace {

v1::ObstacleShape shape_of(ObstacleShape shape) {
  switch (shape) {
    case ObstacleShape::kHalfSpace:
      return v1::OBSTACLE_SHAPE_HALF_SPACE;
    case ObstacleShape::kPlate:
      return v1::OBSTACLE_SHAPE_PLATE;
    case ObstacleShape::kSphere:
      return v1::OBSTACLE_SHAPE_SPHERE;
    case ObstacleShape::kCapsule:
      return v1::OBSTACLE_SHAPE_CAPSULE;
    case ObstacleShape::kMesh:
      return v1::OBSTACLE_SHAPE_MESH;
  }
  return v1::OBSTACLE_SHAPE_UNSPECIFIED;
}

}  // namespace

void to_proto(const ObstaclePose& pose, v1::Pose& out) {
  to_proto(pose.position, *out.mutable_position());
  const Eigen::Quaterniond q(pose.rotation);
  v1::Quaternion& o = *out.mutable_orientation();
  o.set_w(q.w());
  o.set_x(q.x());
  o.set_y(q.y());
  o.set_z(q.z());
}

void to_proto(const Obstacle& o, const ObstaclePose& pose, v1::ObstacleGeometry& out) {
  out.Clear();
  out.set_shape(shape_of(o.shape));
  switch (o.shape) {
    case ObstacleShape::kHalfSpace:
      to_proto(o.normal, *out.mutable_normal());
      break;
    case ObstacleShape::kPlate:
      to_proto(o.normal, *out.mutable_normal());
      to_proto(plate_axes(o).first, *out.mutable_tangent());
      out.add_half_extent(o.half_extent[0]);
      out.add_half_extent(o.half_extent[1]);
      break;
    case ObstacleShape::kCapsule:
      to_proto(o.axis, *out.mutable_axis());
      out.set_half_length(o.half_length);
      out.set_radius(o.radius);
      break;
    case ObstacleShape::kSphere:
      out.set_radius(o.radius);
      break;
    case ObstacleShape::kMesh:
      if (o.surface) {
        // The surface's own frame turned by the obstacle's rotation at t = 0 (a scene's mesh
        // obstacle may be turned before it moves).
        out.mutable_mesh_vertices()->Reserve(3 * static_cast<int>(o.surface->vertices().size()));
        for (const Vec3& x : o.surface->vertices()) {
          const Vec3 turned = o.rotation * x;
          out.mutable_mesh_vertices()->Add(turned.data(), turned.data() + 3);
        }
        for (const Triangle& t : o.surface->triangles())
          for (Index v : t) out.add_mesh_triangles(static_cast<std::uint32_t>(v));
      }
      break;
  }
  out.set_moves(obstacle_moves(o));
  to_proto(pose, *out.mutable_pose());
  out.set_contact_model(o.contact.model == ContactModel::kConstraint ? "constraint" : "penalty");
}

}  // namespace softbody::server
