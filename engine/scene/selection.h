// Vertex selections of scene files (fixed sets, anchors, loads, probes): {"set": name} |
// {"box": {"min", "max"}} | {"plane": {"point", "normal", "distance"}} (within distance of the
// plane, or on its negative side).
#pragma once

#include "engine/mesh/tet_mesh.h"
#include "engine/scene/json_reader.h"

namespace softbody {

std::vector<Index> select_vertices(JsonReader& r, const TetMesh& mesh);

}  // namespace softbody
