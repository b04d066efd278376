// Helpers shared by the engine tests: where the test meshes are, temporary files.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

#include "engine/mesh/tet_mesh.h"

namespace softbody::test {

// Path of a mesh in ../shared/meshes (beside the checkout).
std::string shared_mesh(const std::string& name);
// Every tetrahedral mesh in ../shared/meshes (TetGen pairs listed once, by their .node file).
std::vector<std::string> all_shared_meshes();
bool shared_meshes_available();

// A fresh directory under the system temp dir, removed when the object dies.
class TempDir {
 public:
  TempDir();
  ~TempDir();
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  std::string file(const std::string& name) const { return (path_ / name).string(); }
  // Writes `content` to `name` and returns the path.
  std::string write(const std::string& name, const std::string& content) const;

 private:
  std::filesystem::path path_;
};

// One positively oriented tetrahedron, and the two-tetrahedron mesh of seed 003 Fig. 2.
TetMesh single_tet();
TetMesh two_tets();

}  // namespace softbody::test
