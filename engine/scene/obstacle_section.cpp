#include "engine/scene/obstacle_section.h"

#include <cmath>
#include <filesystem>
#include <numbers>

#include "engine/io/mesh_error.h"
#include "engine/io/surface_reader.h"

namespace softbody {

std::shared_ptr<const Trajectory> read_trajectory(JsonReader r) {
  std::shared_ptr<const Trajectory> trajectory;
  int kinds = r.has("constant") + r.has("keyframes") + r.has("piecewise");
  if (kinds != 1) r.fail("", "needs exactly one of constant, keyframes, piecewise");
  try {
    if (r.has("constant")) {
      trajectory = make_constant_trajectory(r.vec3("constant", Vec3::Zero(), 1));
    } else if (r.has("keyframes")) {
      const nlohmann::json& keys = r.array("keyframes");
      std::vector<Keyframe> frames;
      for (size_t i = 0; i < keys.size(); ++i) {
        JsonReader k = element_reader(keys[i], r.path_of("keyframes"), i, r.source(), r.length());
        k.only({"t", "position"});
        frames.push_back({k.required_number("t"), k.vec3("position", Vec3::Zero(), 1)});
        k.finish();
      }
      std::string interpolation = r.string("interpolation", "linear");
      if (interpolation != "linear" && interpolation != "cubic")
        r.fail("interpolation", "must be linear or cubic");
      trajectory = make_keyframe_trajectory(
          frames, interpolation == "cubic" ? Interpolation::kCubic : Interpolation::kLinear);
    } else {
      const nlohmann::json& pieces = r.array("piecewise");
      std::vector<FormulaPiece> formula;
      for (size_t i = 0; i < pieces.size(); ++i) {
        JsonReader p = element_reader(pieces[i], r.path_of("piecewise"), i, r.source(), r.length());
        p.only({"from", "to", "position"});
        FormulaPiece piece{p.required_number("from"), p.required_number("to"), {}};
        if (!(piece.to > piece.from)) p.fail("to", "must be greater than from");
        const nlohmann::json& xyz = p.raw("position");
        if (!xyz.is_array() || xyz.size() != 3)
          p.fail("position", "expected 3 formulas (strings or numbers)");
        for (size_t k = 0; k < 3; ++k) {
          piece.position[k] = xyz[k].is_string() ? xyz[k].get<std::string>() : xyz[k].dump();
          // Each formula alone, so that a bad one is named by its full path
          // (/obstacles/1/trajectory/piecewise/0/position/2).
          FormulaPiece alone{piece.from, piece.to, {"0", "0", "0"}};
          alone.position[k] = piece.position[k];
          try {
            make_formula_trajectory({alone}, 1);
          } catch (const std::invalid_argument& e) {
            p.fail("position/" + std::to_string(k), e.what());
          }
        }
        p.finish();
        formula.push_back(piece);
      }
      trajectory = make_formula_trajectory(formula, r.length());
    }
  } catch (const std::invalid_argument& e) {
    r.fail("", e.what());
  }
  r.finish();
  return trajectory;
}

namespace {

// A mesh obstacle's surface: `file` (OBJ or STL, relative to the scene's directory) in the scene's
// units, times `scale`.
std::shared_ptr<const RigidSurface> read_rigid_surface(JsonReader& r, const std::string& base_dir) {
  const std::string file = r.string("file", "");
  if (file.empty()) r.fail("file", "a mesh obstacle needs a surface file (.obj or .stl)");
  const double scale = r.number("scale", 1.0);
  if (!(scale > 0) || !std::isfinite(scale)) r.fail("scale", "must be > 0");
  std::filesystem::path path(file);
  if (path.is_relative()) path = std::filesystem::path(base_dir) / path;
  SurfaceMesh surface;
  try {
    surface = read_surface_mesh(path.string());
  } catch (const MeshError& e) {
    r.fail("file", e.what());
  }
  for (Vec3& x : surface.vertices) x *= scale * r.length();
  try {
    return std::make_shared<const RigidSurface>(std::move(surface));
  } catch (const std::invalid_argument& e) {
    r.fail("file", path.string() + ": " + e.what());
  }
}

}  // namespace

Obstacle read_obstacle(JsonReader r, const std::string& base_dir) {
  Obstacle o;
  const std::string type = r.string("type", "halfspace");
  if (type == "halfspace") {
    o.shape = ObstacleShape::kHalfSpace;
  } else if (type == "plate") {
    o.shape = ObstacleShape::kPlate;
  } else if (type == "sphere") {
    o.shape = ObstacleShape::kSphere;
  } else if (type == "capsule") {
    o.shape = ObstacleShape::kCapsule;
  } else if (type == "mesh") {
    o.shape = ObstacleShape::kMesh;
    o.surface = read_rigid_surface(r, base_dir);
  } else {
    r.fail("type",
           "unknown obstacle type '" + type + "' (halfspace, plate, sphere, capsule, mesh)");
  }
  o.normal = r.vec3("normal", Vec3::UnitY());
  if (!(o.normal.norm() > 0)) r.fail("normal", "must be non-zero");
  o.normal.normalize();
  o.axis = r.vec3("axis", Vec3::UnitX());
  if (!(o.axis.norm() > 0)) r.fail("axis", "must be non-zero");
  o.axis.normalize();
  o.radius = r.number("radius", 0, 1);
  o.half_length = r.number("half_length", 0, 1);
  if ((o.shape == ObstacleShape::kSphere || o.shape == ObstacleShape::kCapsule) && !(o.radius > 0))
    r.fail("radius", "must be > 0");
  if (o.shape == ObstacleShape::kPlate) {
    const nlohmann::json& e = r.raw("half_extent");
    if (!e.is_array() || e.size() != 2 || !e[0].is_number() || !e[1].is_number())
      r.fail("half_extent", "expected 2 numbers");
    o.half_extent = {e[0].get<double>() * r.length(), e[1].get<double>() * r.length()};
  }
  if (r.has("trajectory") && r.has("position"))
    r.fail("position", "give either position or trajectory");
  o.trajectory = r.has("trajectory") ? read_trajectory(r.object("trajectory"))
                                     : std::shared_ptr<const Trajectory>(make_constant_trajectory(
                                           r.vec3("position", Vec3::Zero(), 1)));
  if (r.has("contact")) {
    JsonReader c = r.object("contact");
    const std::string model = c.string("model", "penalty");
    if (model == "penalty") {
      o.contact.model = ContactModel::kPenalty;
      o.contact.stiffness = c.number("stiffness", o.contact.stiffness, -1);
      o.contact.damping = c.number("damping", o.contact.damping, -1);
      o.contact.friction = c.number("friction", o.contact.friction, -2);
      if (!(o.contact.stiffness >= 0)) c.fail("stiffness", "must be >= 0");
      if (!(o.contact.damping >= 0)) c.fail("damping", "must be >= 0");
      if (!(o.contact.friction >= 0)) c.fail("friction", "must be >= 0");
      if (c.has("mu"))
        c.fail("mu", "is constraint contact's friction coefficient; penalty contact has friction");
    } else if (model == "constraint") {
      o.contact.model = ContactModel::kConstraint;
      for (const char* penalty_only : {"stiffness", "damping", "friction"})
        if (c.has(penalty_only)) c.fail(penalty_only, "applies to penalty contact only");
    } else {
      c.fail("model", "must be penalty or constraint");
    }
    o.contact.mu = c.number("mu", 0.0);
    if (!(o.contact.mu >= 0)) c.fail("mu", "must be >= 0");
    c.finish();
  }
  o.spin = r.vec3("spin", Vec3::Zero());
  if (!o.spin.allFinite()) r.fail("spin", "must be finite");
  if (!o.spin.isZero(0) && o.contact.model != ContactModel::kConstraint)
    r.fail("spin", "applies to constraint contact only (contact.model: constraint)");
  if (r.has("orientation")) {
    if (o.contact.model != ContactModel::kConstraint)
      r.fail("orientation", "applies to constraint contact only (contact.model: constraint)");
    if (!o.spin.isZero(0)) r.fail("orientation", "give either spin or orientation, not both");
    JsonReader orientation = r.object("orientation");
    const nlohmann::json& keys = orientation.array("keyframes");
    std::vector<OrientationKey> frames;
    for (size_t i = 0; i < keys.size(); ++i) {
      JsonReader k = element_reader(keys[i], orientation.path_of("keyframes"), i,
                                    orientation.source(), orientation.length());
      k.only({"t", "axis_angle_deg"});
      frames.push_back({k.required_number("t"),
                        k.vec3("axis_angle_deg", Vec3::Zero()) * (std::numbers::pi / 180)});
      if (!frames.back().axis_angle.allFinite()) k.fail("axis_angle_deg", "must be finite");
      k.finish();
    }
    try {
      o.orientation = std::make_shared<const OrientationTrajectory>(frames);
    } catch (const std::invalid_argument& e) {
      orientation.fail("keyframes", e.what());
    }
    orientation.finish();
  }
  r.finish();
  return o;
}

}  // namespace softbody
