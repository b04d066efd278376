#include "engine/scene/scene.h"

#include <filesystem>
#include <fstream>

#include "engine/scene/body_section.h"
#include "engine/scene/constraint_section.h"
#include "engine/scene/contact_section.h"
#include "engine/scene/initial_velocity_section.h"
#include "engine/scene/json_reader.h"
#include "engine/scene/loads_section.h"
#include "engine/scene/obstacle_section.h"
#include "engine/scene/step_section.h"

namespace softbody {
namespace {

double unit_length(const std::string& units, const std::string& source) {
  if (units == "m") return 1.0;
  if (units == "cm") return 1e-2;
  if (units == "mm") return 1e-3;
  throw SceneError(source + ": /units: unknown unit system '" + units + "' (m, cm, mm)");
}

}  // namespace

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
             "probes", "contact", "initial_velocity"});
  JsonReader mesh_section = root.object("mesh");
  JsonReader material = root.object("material");
  auto build_body = [&] {
    return read_body(mesh_section, material, base_dir, sources.uploaded_mesh);
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
  auto model = std::make_shared<SimulationModel>();
  model->topology = body.topology;
  model->forces = body.forces;
  model->viscous = body.viscous;
  model->material = body.material;
  model->rest = mesh.vertices;
  model->mass = body.mass;

  read_step_options(root, model->viscous != nullptr, model->options);
  scene.duration = root.number("duration", 1.0);
  if (!(scene.duration > 0)) root.fail("duration", "must be > 0");
  model->gravity = root.vec3("gravity", Vec3(0, -9.81, 0) / length, 1);
  model->fixed = read_fixed(root, mesh);
  model->initial_velocity = read_initial_velocity(root, mesh.vertices, model->fixed);
  model->surface_loads = read_loads(root, mesh, *body.topology);
  scene.probes = read_probes(root, mesh);
  model->anchors = read_anchors(root, mesh, body.permutation);
  if (root.has("obstacles")) {
    const nlohmann::json& obstacles = root.array("obstacles");
    for (size_t i = 0; i < obstacles.size(); ++i) {
      model->obstacles.push_back(
          read_obstacle(element_reader(obstacles[i], "/obstacles", i, source, length), base_dir));
    }
  }
  model->contact = read_contact_options(root);
  check_constraint_contact(*model, root);
  check_integrator(*model, root);
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
