// JSON scene files: mesh (file or box generator) with scale/rotation/translation, material,
// damping, time step, integrator and solver settings, fixed vertices, anchors, obstacles with
// trajectories, gravity. Documented in docs/scenes.md. Any unknown key or wrong type is a
// SceneError naming the file and the JSON path (e.g. "crush.json: /material/E: expected a number").
#pragma once

#include <nlohmann/json.hpp>
#include <stdexcept>
#include <string>

#include "engine/sim/simulation.h"

namespace softbody {

class SceneError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

struct Scene {
  std::string name;
  std::shared_ptr<SimulationModel> model;
  TetMesh mesh;            // rest mesh as simulated (SI units, renumbered for locality)
  double duration = 1.0;   // default run length [s]
  std::string model_name;  // force model, material and volumetric term, for output (energy density)
  Material material;
  VolumetricKind volumetric = VolumetricKind::kNone;
  nlohmann::json document;  // the scene after --set overrides
};

// Reads a scene file; `overrides` are "json.path=value" strings (value: JSON, or a bare string).
Scene load_scene(const std::string& path, const std::vector<std::string>& overrides = {});
// Builds a scene from a document; relative mesh paths are resolved against `base_dir`.
Scene build_scene(const nlohmann::json& document, const std::string& source,
                  const std::string& base_dir);

// Applies one "a.b.c=value" override to a document (creating missing objects).
void apply_override(nlohmann::json& document, const std::string& assignment,
                    const std::string& source);

}  // namespace softbody
