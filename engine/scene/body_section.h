// The body of a scene: its mesh (a file or a box, transformed) and its material (elastic law,
// volumetric term, pressure mode, viscosity), built into the immutable SceneBody sessions share.
#pragma once

#include <memory>
#include <string>

#include "engine/scene/json_reader.h"

namespace softbody {

// `mesh_section` and `material` are the scene's "mesh" and "material" objects; relative mesh
// files resolve against `base_dir`; `uploaded_mesh` (may be null) stands in for a file.
std::shared_ptr<const SceneBody> read_body(JsonReader mesh_section, JsonReader material,
                                           const std::string& base_dir,
                                           const TetMesh* uploaded_mesh);

}  // namespace softbody
