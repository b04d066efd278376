// The scene's `loads` (surface tractions over time, sim/surface_loads.h) and `probes` (vertex
// selections whose mean displacement softbody-sim prints).
//   "loads": [{<selection>, "traction": [Pa, Pa, Pa] | "pressure": Pa,
//              "curve": [[t, s], ...]}]   (the boundary triangles whose 3 vertices are selected)
//   "probes": [{"name": "tip", <selection>}]
#pragma once

#include "engine/mesh/topology.h"
#include "engine/scene/json_reader.h"
#include "engine/scene/probe.h"
#include "engine/sim/surface_loads.h"

namespace softbody {

std::vector<SurfaceLoad> read_loads(JsonReader& root, const TetMesh& mesh,
                                    const MeshTopology& topology);
std::vector<Probe> read_probes(JsonReader& root, const TetMesh& mesh);

}  // namespace softbody
