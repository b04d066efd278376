#include "engine/tests/test_support.h"

#include <fstream>
#include <random>

namespace softbody::test {

std::string test_mesh(const std::string& name) {
  const bool shipped = name.rfind("knight.", 0) == 0;
  return std::string(shipped ? SOFTBODY_PROJECT_MESHES : SOFTBODY_TEST_MESHES) + "/" + name;
}

std::vector<std::string> all_test_meshes() {
  return {test_mesh("octopus-low.mesh"), test_mesh("knight.node"), test_mesh("bunny.mesh"),
          test_mesh("hand.mesh"), test_mesh("hand.msh")};
}

TempDir::TempDir() {
  std::random_device rd;
  path_ = std::filesystem::temp_directory_path() / ("softbody-test-" + std::to_string(rd()));
  std::filesystem::create_directories(path_);
}

TempDir::~TempDir() {
  std::error_code ec;
  std::filesystem::remove_all(path_, ec);
}

std::string TempDir::write(const std::string& name, const std::string& content) const {
  std::string p = file(name);
  std::ofstream(p, std::ios::binary) << content;
  return p;
}

TetMesh single_tet() {
  TetMesh m;
  m.vertices = {Vec3(0, 0, 0), Vec3(1, 0, 0), Vec3(0, 1, 0), Vec3(0, 0, 1)};
  m.tets = {{0, 1, 2, 3}};
  return m;
}

TetMesh two_tets() {
  TetMesh m;
  m.vertices = {Vec3(0, 0, 0), Vec3(1, 0, 0), Vec3(0, 1, 0), Vec3(0, 0, 1), Vec3(0.6, 0.6, 0.6)};
  m.tets = {{0, 1, 2, 3}, {1, 2, 3, 4}};
  if (six_signed_volume(m.vertices, m.tets[1]) < 0) std::swap(m.tets[1][2], m.tets[1][3]);
  return m;
}

}  // namespace softbody::test
