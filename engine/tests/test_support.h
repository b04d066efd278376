// Helpers shared by the engine tests: where the test meshes are, temporary files.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

#include "engine/mesh/tet_mesh.h"

namespace softbody::test {

// Path of a mesh the tests carry: the shipped knight (knight.node, knight.ele) in meshes/, every
// other one in tests/meshes/ (tests/meshes/README.md says where each came from).
std::string test_mesh(const std::string& name);
// Every tetrahedral mesh the tests carry (TetGen pairs listed once, by their .node file).
std::vector<std::string> all_test_meshes();

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
