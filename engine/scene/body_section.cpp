#include "engine/scene/body_section.h"

#include <Eigen/Geometry>
#include <filesystem>

#include "engine/forces/nodal_volume.h"
#include "engine/io/mesh_error.h"
#include "engine/mesh/box_generator.h"
#include "engine/mesh/quality.h"
#include "engine/mesh/reorder.h"
#include "engine/mesh/validation.h"
#include "engine/scene/setting_reader.h"
#include "engine/scene/viscous_section.h"

namespace softbody {
namespace {

TetMesh read_mesh(JsonReader r, const std::string& base_dir, const TetMesh* uploaded,
                  MeshPermutation& permutation) {
  TetMesh mesh;
  if (uploaded && (r.has("box") || r.has("file"))) {
    r.fail(r.has("box") ? "box" : "file", "a scene sent with an uploaded mesh cannot name another");
  }
  if (r.has("box")) {
    JsonReader b = r.object("box");
    BoxSpec spec;
    if (b.has("cells")) {
      const nlohmann::json& cells = b.array("cells");
      if (cells.size() != 3 || !cells[0].is_number_integer() || !cells[1].is_number_integer() ||
          !cells[2].is_number_integer()) {
        b.fail("cells", "expected 3 integers");
      }
      spec.nx = cells[0].get<int>();
      spec.ny = cells[1].get<int>();
      spec.nz = cells[2].get<int>();
      if (spec.nx < 1 || spec.ny < 1 || spec.nz < 1 ||
          static_cast<long>(spec.nx) * spec.ny * spec.nz > 2'000'000) {
        b.fail("cells", "each count must be >= 1 and the product at most 2,000,000");
      }
    }
    spec.size = b.vec3("size", Vec3(1, 1, 1), 1);
    if (!(spec.size.array() > 0).all()) b.fail("size", "must be positive");
    spec.origin = b.vec3("origin", Vec3::Zero(), 1);
    b.finish();
    mesh = make_box_mesh(spec);
  } else {
    if (uploaded) {
      mesh = *uploaded;
    } else {
      std::string file = r.string("file", "");
      if (file.empty()) r.fail("file", "a mesh needs a file or a box");
      std::filesystem::path path(file);
      if (path.is_relative()) path = std::filesystem::path(base_dir) / path;
      try {
        mesh = load_mesh(path.string(), {.repair = r.boolean("repair", false)}).mesh;
      } catch (const MeshError& e) {
        r.fail("file", e.what());
      }
    }
    // File coordinates: scale, rotate (degrees about x, then y, then z), translate; or fit the
    // height (y extent after rotation) to a given value.
    const Vec3 angles = r.vec3("rotate_deg", Vec3::Zero()) * (M_PI / 180.0);
    const Mat3 rotation = (Eigen::AngleAxisd(angles.z(), Vec3::UnitZ()) *
                           Eigen::AngleAxisd(angles.y(), Vec3::UnitY()) *
                           Eigen::AngleAxisd(angles.x(), Vec3::UnitX()))
                              .toRotationMatrix();
    double scale = r.number("scale", 1.0);
    for (Vec3& x : mesh.vertices) x = rotation * x;
    if (r.has("fit_height")) {
      const BoundingBox box = bounding_box(mesh.vertices);
      scale = r.number("fit_height", 1.0, 1) / (box.max.y() - box.min.y()) / r.length();
    }
    if (!(scale > 0)) r.fail("scale", "must be positive");
    // Optionally put the lowest point at a height (before translation).
    const bool on_ground = r.has("lowest_y");
    const double lowest = r.number("lowest_y", 0, 1);
    for (Vec3& x : mesh.vertices) x *= scale * r.length();
    if (on_ground) {
      const double lo = bounding_box(mesh.vertices).min.y();
      for (Vec3& x : mesh.vertices) x.y() += lowest - lo;
    }
    if (r.boolean("center_xz", false)) {
      const BoundingBox box = bounding_box(mesh.vertices);
      const Vec3 shift(-(box.min.x() + box.max.x()) / 2, 0, -(box.min.z() + box.max.z()) / 2);
      for (Vec3& x : mesh.vertices) x += shift;
    }
    const Vec3 translate = r.vec3("translate", Vec3::Zero(), 1);
    for (Vec3& x : mesh.vertices) x += translate;
  }
  if (r.boolean("reorder", true)) {
    permutation = reorder_for_locality(mesh);
  } else {
    permutation.new_of_old_vertex.resize(mesh.vertices.size());
    for (size_t i = 0; i < mesh.vertices.size(); ++i)
      permutation.new_of_old_vertex[i] = static_cast<Index>(i);
  }
  r.finish();
  return mesh;
}

// material.pressure: "element" (one volume per tetrahedron), "nodal" (average nodal pressure) or
// "auto" (nodal from kNodalPressureFromPoisson on).
bool read_pressure_mode(JsonReader& mat, double poisson_ratio) {
  const PressureMode mode =
      parse_pressure_mode(read_choice_setting(mat, "/material/pressure", "auto"));
  if (mode == PressureMode::kAuto) return poisson_ratio >= kNodalPressureFromPoisson;
  return mode == PressureMode::kNodal;
}

}  // namespace

PressureMode parse_pressure_mode(const std::string& name) {
  if (name == "auto") return PressureMode::kAuto;
  if (name == "element") return PressureMode::kElement;
  if (name == "nodal") return PressureMode::kNodal;
  throw std::invalid_argument("must be \"auto\", \"element\" or \"nodal\", not \"" + name + "\"");
}

std::shared_ptr<const SceneBody> read_body(JsonReader mesh_section, JsonReader mat,
                                           const std::string& base_dir,
                                           const TetMesh* uploaded_mesh) {
  mat.only({"E", "nu", "density", "model", "volumetric", "pressure", "viscoelastic", "rate_damping",
            "cnh_threshold"});
  auto body = std::make_shared<SceneBody>();
  const std::string mesh_name = uploaded_mesh              ? "the uploaded mesh"
                                : mesh_section.has("file") ? mesh_section.string("file", "")
                                                           : "the generated box";
  body->mesh = read_mesh(mesh_section, base_dir, uploaded_mesh, body->permutation);
  body->warnings = mesh_warnings(mesh_stats(body->mesh), body->mesh.tets.size(), mesh_name);
  Material& material = body->material;
  const std::optional<ConstantQFit> constant_q = read_constant_q(mat);
  if (!constant_q) {
    material.youngs_modulus = read_required_setting(mat, "/material/E");
  } else if (mat.has("E")) {
    mat.fail("E",
             "not with viscoelastic.constant_q: the fit sets the long-term modulus, "
             "E = 2 mu_0 (1 + nu)");
  }
  material.poisson_ratio = read_required_setting(mat, "/material/nu");
  // With constant_q the fit's long-term shear modulus is the elastic law's.
  if (constant_q)
    material.youngs_modulus = 2 * constant_q->long_term * (1 + material.poisson_ratio);
  material.density = mat.required_number("density", -3);
  body->model_name = mat.string("model", "stvk-edge");
  if (mat.has("cnh_threshold")) {
    if (body->model_name != "cnh") mat.fail("cnh_threshold", "only for model \"cnh\"");
    material.cnh_threshold = mat.number("cnh_threshold", material.cnh_threshold);
    if (!(material.cnh_threshold > 0 && material.cnh_threshold < 1))
      mat.fail("cnh_threshold", "must lie in (0, 1)");
  }
  body->nodal_pressure = read_pressure_mode(mat, material.poisson_ratio);
  body->topology = std::make_shared<const MeshTopology>(
      body->mesh,
      body->nodal_pressure ? MatrixCoupling::kSecondNeighbours : MatrixCoupling::kEdges);
  try {
    material.check();
    body->volumetric = parse_volumetric_kind(mat.string("volumetric", "none"));
    body->forces = make_force_model(body->model_name, body->topology, body->mesh.vertices, material,
                                    body->volumetric, body->nodal_pressure);
  } catch (const NodalVolumeError& e) {
    mat.fail("pressure", e.what());
  } catch (const std::invalid_argument& e) {
    mat.fail(mat.has("volumetric") ? "volumetric" : "model", e.what());
  }
  if (!(material.density > 0)) mat.fail("density", "must be > 0");
  // Under average nodal pressure the element law (and so the viscous law's volumetric
  // defaults) keeps only a little of lambda: a per-element bulk viscosity of lambda / 100 would
  // lock as lambda does.
  const Material element_material = body->nodal_pressure ? nodal_split(material) : material;
  ViscousMaterial viscous = read_viscous_material(mat, element_material, constant_q);
  if (!viscous.empty())
    body->viscous = std::make_shared<const ViscousModel>(
        body->topology, body->mesh.vertices, std::move(viscous),
        body->model_name == "stvk-tl" && body->volumetric == VolumetricKind::kNone
            ? &element_material
            : nullptr);
  mat.finish();
  body->mass = lumped_masses(body->mesh, material.density);
  return body;
}

}  // namespace softbody
