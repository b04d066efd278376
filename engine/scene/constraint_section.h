// What holds a scene's body: fixed vertex selections and anchors (spring-dampers from vertices to
// points that may move along a trajectory).
#pragma once

#include <cstdint>
#include <vector>

#include "engine/mesh/reorder.h"
#include "engine/scene/json_reader.h"
#include "engine/sim/external_forces.h"

namespace softbody {

// One flag per vertex (empty when nothing is fixed).
std::vector<std::uint8_t> read_fixed(JsonReader& root, const TetMesh& mesh);
std::vector<Anchor> read_anchors(JsonReader& root, const TetMesh& mesh,
                                 const MeshPermutation& permutation);

}  // namespace softbody
