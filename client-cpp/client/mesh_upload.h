// A local mesh file as an UploadedMesh for CreateSession: any format the server reads (Gmsh .msh,
// MEDIT .mesh, TetGen .node with its .ele, VTK .vtk, VTU .vtu), optionally with a local scene
// document whose "mesh" section gives the transforms (its "file" is replaced by the upload).
#pragma once

#include <string>

#include "client-cpp/client/result.h"
#include "softbody/v1/session.pb.h"

namespace softbody::client {

// INVALID_ARGUMENT naming the file when it cannot be read or its extension is not a mesh format
// (the server checks the content and reports file, line and problem).
Result<softbody::v1::UploadedMesh> read_mesh_upload(const std::string& mesh_path,
                                                    const std::string& scene_path = "");

}  // namespace softbody::client
