// Reading triangle surfaces, the shapes of rigid tools and fixtures
// (engine/contact/rigid_surface.h): Wavefront OBJ (v and f records; polygons fanned into triangles;
// texture and normal indices, negative (relative) indices, groups, materials and the other records
// accepted and ignored) and STL (ASCII and binary; STL repeats each vertex per face, so coinciding
// vertices are merged). Every failure is a MeshError naming the file, the line (or byte) and the
// problem. Written here, not taken from Debian's tinyobjloader or assimp: their errors do not name
// the line, and the project's other mesh readers share TextScanner.
#pragma once

#include <string>
#include <string_view>

#include "engine/mesh/surface_mesh.h"

namespace softbody {

// By the extension (.obj or .stl).
SurfaceMesh read_surface_mesh(const std::string& path);
SurfaceMesh parse_surface_obj(const std::string& path, std::string_view content);
SurfaceMesh parse_surface_stl(const std::string& path, std::string_view content);

}  // namespace softbody
