// JSON scene files: mesh (file or box generator) with scale/rotation/translation, material,
// damping, time step, integrator and solver settings, fixed vertices, anchors, obstacles with
// trajectories, gravity. Documented in docs/scenes.md. Any unknown key or wrong type is a
// SceneError naming the file and the JSON path (e.g. "crush.json: /material/E: expected a number").
#pragma once

#include <functional>
#include <nlohmann/json.hpp>
#include <stdexcept>
#include <string>

#include "engine/mesh/reorder.h"
#include "engine/scene/probe.h"
#include "engine/sim/simulation.h"

namespace softbody {

class SceneError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// The immutable part of a scene that sessions with the same mesh and material share: the mesh as
// simulated (SI units, renumbered for locality), its topology, force model and masses.
struct SceneBody {
  TetMesh mesh;
  MeshPermutation permutation;  // file vertex numbering -> simulated numbering
  std::shared_ptr<const MeshTopology> topology;
  std::shared_ptr<const ForceModel> forces;
  std::shared_ptr<const ViscousModel> viscous;  // null for an elastic material
  std::vector<double> mass;
  std::string model_name;  // force model, material and volumetric term, for output (energy density)
  Material material;
  VolumetricKind volumetric = VolumetricKind::kNone;
  // Average nodal pressure (forces/nodal_volume.h): material.pressure "nodal", or "auto" with
  // nu >= kNodalPressureFromPoisson.
  bool nodal_pressure = false;
  // What a user should hear about the mesh before simulating it (mesh_warnings: slivers).
  std::vector<std::string> warnings;
};

// material.pressure: "auto", "element" or "nodal"; std::invalid_argument naming them otherwise.
enum class PressureMode { kAuto, kElement, kNodal };
PressureMode parse_pressure_mode(const std::string& name);

// From this Poisson's ratio on, "auto" pressure is nodal: linear tetrahedra lock visibly (a
// cantilever at nu = 0.45 bends ~35 % less than at nu = 0.3; docs/solvers.md).
inline constexpr double kNodalPressureFromPoisson = 0.45;

struct Scene {
  std::string name;
  std::shared_ptr<SimulationModel> model;
  std::shared_ptr<const SceneBody> body;
  double duration = 1.0;      // default run length [s]
  nlohmann::json document;    // the scene after --set overrides
  std::vector<Probe> probes;  // `probes`: reported by softbody-sim run and static
};

// Returns the body cached under `key`, or calls `build` and (maybe) caches its result. The key
// names everything the body depends on: the mesh and material sections, the units, the directory
// relative mesh paths resolve against, and an uploaded mesh's content hash.
using BodyProvider = std::function<std::shared_ptr<const SceneBody>(
    const std::string& key, const std::function<std::shared_ptr<const SceneBody>()>& build)>;

// Optional inputs of build_scene besides the document.
struct SceneSources {
  // A mesh supplied with the scene (uploaded by a client): used when the mesh section names
  // neither a file nor a box; the section's transforms (scale, fit_height, ...) still apply.
  const TetMesh* uploaded_mesh = nullptr;
  std::string uploaded_mesh_key;  // identifies the uploaded content (e.g. a hash) for caching
  BodyProvider bodies;            // when empty, every scene builds its own body
};

// Reads a scene file; `overrides` are "json.path=value" strings (value: JSON, or a bare string).
Scene load_scene(const std::string& path, const std::vector<std::string>& overrides = {});
// Builds a scene from a document; relative mesh paths are resolved against `base_dir`.
Scene build_scene(const nlohmann::json& document, const std::string& source,
                  const std::string& base_dir, const SceneSources& sources = {});

// The length unit of a scene document in metres ("units": m, cm or mm); SceneError otherwise.
double scene_length_unit(const nlohmann::json& document, const std::string& source);

// Applies one override, KEY=VALUE, to a document. KEY is a path of object keys and array indices,
// dotted ("obstacles.1.contact.friction", "gravity.1") or a JSON pointer ("/material/E",
// "/obstacles/1/contact/friction"); missing objects are created, an index must exist (or be
// the array's size, appending). VALUE is JSON; a bare word is a string. SceneError names the
// part of the path at fault, after "SOURCE: --set KEY: " (without "SOURCE: " when it is empty).
void apply_override(nlohmann::json& document, const std::string& assignment,
                    const std::string& source);

}  // namespace softbody
