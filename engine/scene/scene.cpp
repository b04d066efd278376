#include "engine/scene/scene.h"

#include <Eigen/Geometry>
#include <charconv>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "engine/forces/nodal_volume.h"
#include "engine/io/mesh_error.h"
#include "engine/mesh/box_generator.h"
#include "engine/mesh/reorder.h"
#include "engine/mesh/validation.h"
#include "engine/scene/json_reader.h"
#include "engine/scene/loads_section.h"
#include "engine/scene/selection.h"
#include "engine/scene/setting_reader.h"
#include "engine/scene/viscous_section.h"

namespace softbody {
namespace {

double unit_length(const std::string& units, const std::string& source) {
  if (units == "m") return 1.0;
  if (units == "cm") return 1e-2;
  if (units == "mm") return 1e-3;
  throw SceneError(source + ": /units: unknown unit system '" + units + "' (m, cm, mm)");
}

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

Obstacle read_obstacle(JsonReader r) {
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
  } else {
    r.fail("type", "unknown obstacle type '" + type + "' (halfspace, plate, sphere, capsule)");
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
    o.contact.stiffness = c.number("stiffness", o.contact.stiffness, -1);
    o.contact.damping = c.number("damping", o.contact.damping, -1);
    o.contact.friction = c.number("friction", o.contact.friction, -2);
    if (!(o.contact.stiffness >= 0)) c.fail("stiffness", "must be >= 0");
    if (!(o.contact.damping >= 0)) c.fail("damping", "must be >= 0");
    if (!(o.contact.friction >= 0)) c.fail("friction", "must be >= 0");
    c.finish();
  }
  r.finish();
  return o;
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

Scene build_scene(const nlohmann::json& document, const std::string& source,
                  const std::string& base_dir, const SceneSources& sources) {
  Scene scene;
  scene.document = document;
  if (!document.is_object()) throw SceneError(source + ": /: a scene is a JSON object");
  const double length = unit_length(document.value("units", std::string("m")), source);
  JsonReader root(scene.document, "", source, length);
  root.string("units", "m");
  scene.name = root.string("name", std::filesystem::path(source).stem().string());
  root.string("description", "");
  root.only({"units", "name", "description", "mesh", "material", "damping", "integrator", "solver",
             "robustness", "dt", "duration", "gravity", "fixed", "anchors", "obstacles", "loads",
             "probes"});
  JsonReader mesh_section = root.object("mesh");
  JsonReader mat = root.object("material");
  mat.only(
      {"E", "nu", "density", "model", "volumetric", "pressure", "viscoelastic", "rate_damping"});
  auto build_body = [&]() -> std::shared_ptr<const SceneBody> {
    auto body = std::make_shared<SceneBody>();
    body->mesh = read_mesh(mesh_section, base_dir, sources.uploaded_mesh, body->permutation);
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
    body->nodal_pressure = read_pressure_mode(mat, material.poisson_ratio);
    body->topology = std::make_shared<const MeshTopology>(
        body->mesh,
        body->nodal_pressure ? MatrixCoupling::kSecondNeighbours : MatrixCoupling::kEdges);
    try {
      material.check();
      body->volumetric = parse_volumetric_kind(mat.string("volumetric", "none"));
      body->forces = make_force_model(body->model_name, body->topology, body->mesh.vertices,
                                      material, body->volumetric, body->nodal_pressure);
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
  };
  if (sources.bodies) {
    const std::string key = base_dir + "\n" + document.value("units", std::string("m")) + "\n" +
                            document.at("mesh").dump() + "\n" + document.at("material").dump() +
                            "\n" + sources.uploaded_mesh_key;
    scene.body = sources.bodies(key, build_body);
  } else {
    scene.body = build_body();
  }
  const SceneBody& body = *scene.body;
  const TetMesh& mesh = body.mesh;
  const MeshPermutation& permutation = body.permutation;
  auto model = std::make_shared<SimulationModel>();
  model->topology = body.topology;
  model->forces = body.forces;
  model->viscous = body.viscous;
  model->rest = mesh.vertices;
  model->mass = body.mass;

  IntegratorOptions& o = model->options;
  o.dt = read_number_setting(root, "/dt", 0.01);
  scene.duration = root.number("duration", 1.0);
  if (!(scene.duration > 0)) root.fail("duration", "must be > 0");
  model->gravity = root.vec3("gravity", Vec3(0, -9.81, 0) / length, 1);
  if (root.has("damping")) {
    JsonReader d = root.object("damping");
    o.alpha = read_number_setting(d, "/damping/alpha", 0);
    o.beta = read_number_setting(d, "/damping/beta", 0);
    // beta multiplies the tangent, which for a viscous material holds the viscous one too.
    if (o.beta != 0 && model->viscous)
      d.fail("beta",
             "must be 0 with material.viscoelastic or material.rate_damping: the "
             "material's own viscosity replaces stiffness-proportional damping (alpha "
             "stays available)");
    d.finish();
  }
  if (root.has("integrator")) {
    JsonReader i = root.object("integrator");
    o.type = parse_integrator_type(
        read_choice_setting(i, "/integrator/type", integrator_type_name(o.type)));
    o.correction = i.boolean("correction", o.correction);
    const std::string definiteness =
        i.string("definiteness", o.solver.definite ? "shift" : "exact");
    if (definiteness != "shift" && definiteness != "exact")
      i.fail("definiteness", "unknown definiteness '" + definiteness + "' (shift, exact)");
    o.solver.definite = definiteness == "shift";
    o.correction_speed = i.number("V", o.correction_speed / length, 1);
    if (!(o.correction_speed > 0)) i.fail("V", "must be > 0");
    if (i.has("newton")) {
      JsonReader nw = i.object("newton");
      NewtonOptions& newton = o.newton;
      newton.tolerance = nw.number("tolerance", newton.tolerance);
      if (!(newton.tolerance >= 1e-14 && newton.tolerance < 1))
        nw.fail("tolerance", "must be in [1e-14, 1)");
      newton.forcing = nw.number("forcing", newton.forcing);
      if (!(newton.forcing >= 1e-14 && newton.forcing < 1))
        nw.fail("forcing", "must be in [1e-14, 1)");
      newton.max_iterations = nw.integer("max_iterations", newton.max_iterations);
      if (newton.max_iterations < 1 || newton.max_iterations > 1000)
        nw.fail("max_iterations", "must be in [1, 1000]");
      nw.finish();
    }
    i.finish();
  }
  if (root.has("solver")) {
    JsonReader s = root.object("solver");
    o.solver.type = parse_solver_type(read_choice_setting(s, "/solver/type", "auto"));
    o.solver.preconditioner =
        parse_preconditioner(read_choice_setting(s, "/solver/preconditioner", "none"));
    o.solver.refactor = parse_refactor_mode(read_choice_setting(s, "/solver/refactor", "sync"));
    o.solver.tolerance = read_number_setting(s, "/solver/tolerance", o.solver.tolerance);
    o.solver.max_iterations =
        read_integer_setting(s, "/solver/max_iterations", o.solver.max_iterations);
    o.solver.time_budget_s = s.number("time_budget", 0);
    s.finish();
  }
  if (root.has("robustness")) {
    JsonReader r = root.object("robustness");
    o.max_speed = r.number("max_speed", o.max_speed / length, 1);
    o.max_retries = r.integer("max_retries", o.max_retries);
    if (o.max_retries < 0 || o.max_retries > 8) r.fail("max_retries", "must lie in [0, 8]");
    r.finish();
  }
  model->fixed.assign(mesh.vertices.size(), 0);
  if (root.has("fixed")) {
    const nlohmann::json& fixed = root.array("fixed");
    for (size_t i = 0; i < fixed.size(); ++i) {
      JsonReader f = element_reader(fixed[i], "/fixed", i, source, length);
      for (Index v : select_vertices(f, mesh)) model->fixed[static_cast<size_t>(v)] = 1;
      f.finish();
    }
  }
  if (std::none_of(model->fixed.begin(), model->fixed.end(), [](std::uint8_t f) { return f != 0; }))
    model->fixed.clear();
  model->surface_loads = read_loads(root, mesh, *body.topology);
  scene.probes = read_probes(root, mesh);
  if (root.has("anchors")) {
    const nlohmann::json& anchors = root.array("anchors");
    for (size_t i = 0; i < anchors.size(); ++i) {
      JsonReader a = element_reader(anchors[i], "/anchors", i, source, length);
      std::vector<Index> vertices;
      if (a.has("vertex")) {
        const int v = a.integer("vertex", -1);
        if (v < 0 || v >= mesh.num_vertices()) a.fail("vertex", "no vertex " + std::to_string(v));
        vertices.push_back(permutation.new_of_old_vertex[static_cast<size_t>(v)]);
      } else if (a.has("nearest")) {
        const Vec3 x = a.vec3("nearest", Vec3::Zero(), 1);
        Index best = 0;
        for (Index v = 1; v < mesh.num_vertices(); ++v) {
          if ((mesh.vertices[static_cast<size_t>(v)] - x).squaredNorm() <
              (mesh.vertices[static_cast<size_t>(best)] - x).squaredNorm())
            best = v;
        }
        vertices.push_back(best);
      } else if (a.has("select")) {
        JsonReader selection = a.object("select");
        vertices = select_vertices(selection, mesh);
        selection.finish();
      } else {
        a.fail("", "an anchor needs vertex, nearest or select");
      }
      // Target: the vertex's rest position plus an optional offset trajectory.
      std::shared_ptr<const Trajectory> offset =
          a.has("offset") ? read_trajectory(a.object("offset")) : nullptr;
      const double stiffness = a.required_number("stiffness", -1),
                   damping = a.number("damping", 0, -1);
      a.finish();
      for (Index v : vertices) {
        const Vec3 rest = mesh.vertices[static_cast<size_t>(v)];
        std::shared_ptr<const Trajectory> target =
            offset ? std::shared_ptr<const Trajectory>(make_offset_trajectory(offset, rest))
                   : std::shared_ptr<const Trajectory>(make_constant_trajectory(rest));
        model->anchors.push_back({v, target, stiffness, damping});
      }
    }
  }
  if (root.has("obstacles")) {
    const nlohmann::json& obstacles = root.array("obstacles");
    for (size_t i = 0; i < obstacles.size(); ++i) {
      model->obstacles.push_back(
          read_obstacle(element_reader(obstacles[i], "/obstacles", i, source, length)));
    }
  }
  root.finish();
  scene.model = model;
  return scene;
}

double scene_length_unit(const nlohmann::json& document, const std::string& source) {
  return unit_length(document.value("units", std::string("m")), source);
}

Scene load_scene(const std::string& path, const std::vector<std::string>& overrides) {
  std::ifstream in(path);
  if (!in) throw SceneError(path + ": cannot open the scene file");
  nlohmann::json document;
  try {
    document = nlohmann::json::parse(in);
  } catch (const nlohmann::json::parse_error& e) {
    throw SceneError(path + ": invalid JSON: " + e.what());
  }
  for (const std::string& o : overrides) apply_override(document, o, path);
  return build_scene(document, path, std::filesystem::path(path).parent_path().string());
}

}  // namespace softbody
