#include "engine/io/mesh_io.h"

#include <gtest/gtest.h>

#include "engine/io/mesh_error.h"
#include "engine/io/text_scanner.h"
#include "engine/mesh/box_generator.h"
#include "engine/mesh/topology.h"
#include "engine/mesh/validation.h"
#include "engine/tests/test_support.h"

namespace softbody {
namespace {

TetMesh sample_mesh() {
  TetMesh m = make_box_mesh(
      {.nx = 2, .ny = 3, .nz = 2, .size = Vec3(0.2, 0.3, 0.25), .origin = Vec3(-0.1, 0.05, 1.0)});
  // Non-representable decimal coordinates check that writers keep full precision.
  for (Vec3& x : m.vertices) x += Vec3(1.0 / 3.0, std::sqrt(2.0) * 1e-3, -1e-7 / 7.0);
  m.vertex_sets.clear();
  return m;
}

void expect_same_mesh(const TetMesh& a, const TetMesh& b, const std::string& what) {
  ASSERT_EQ(a.vertices.size(), b.vertices.size()) << what;
  ASSERT_EQ(a.tets, b.tets) << what;
  for (size_t i = 0; i < a.vertices.size(); ++i)
    EXPECT_EQ(a.vertices[i], b.vertices[i]) << what << " vertex " << i;
}

struct RoundTripCase {
  std::string file;
  WriteOptions options;
};

class RoundTrip : public testing::TestWithParam<RoundTripCase> {};

TEST_P(RoundTrip, WriteThenReadGivesTheSameMesh) {
  test::TempDir dir;
  TetMesh mesh = sample_mesh();
  std::string path = dir.file(GetParam().file);
  write_mesh(path, mesh, GetParam().options);
  ParsedMesh read = parse_mesh_file(path);
  expect_same_mesh(mesh, read.mesh, GetParam().file);
  EXPECT_EQ(read.format, format_from_extension(path));
}

INSTANTIATE_TEST_SUITE_P(
    AllFormats, RoundTrip,
    testing::Values(RoundTripCase{"a.msh", {.binary = false, .msh_version = 41}},
                    RoundTripCase{"b.msh", {.binary = true, .msh_version = 41}},
                    RoundTripCase{"c.msh", {.binary = false, .msh_version = 22}},
                    RoundTripCase{"d.msh", {.binary = true, .msh_version = 22}},
                    RoundTripCase{"e.mesh", {}}, RoundTripCase{"f.node", {}},
                    RoundTripCase{"g.vtk", {.binary = false}},
                    RoundTripCase{"h.vtk", {.binary = true}},
                    RoundTripCase{"i.vtu", {.binary = false}},
                    RoundTripCase{"j.vtu", {.binary = true}}),
    [](const testing::TestParamInfo<RoundTripCase>& param_info) {
      std::string name = param_info.param.file;
      for (char& c : name) {
        if (c == '.') c = '_';
      }
      return name + (param_info.param.options.binary ? "_binary" : "_ascii") +
             std::to_string(param_info.param.options.msh_version);
    });

TEST(MeshIo, EveryShippedAndTestMeshLoads) {
  struct Expected {
    std::string name;
    Index vertices, tets;
  };
  // The shipped knight by either file of its TetGen pair.
  for (const Expected& e :
       {Expected{"octopus-low.mesh", 452, 1140}, Expected{"knight.node", 554, 1566},
        Expected{"knight.ele", 554, 1566}, Expected{"bunny.mesh", 5433, 34055},
        Expected{"hand.mesh", 7234, 29998}, Expected{"hand.msh", 7234, 29998}}) {
    LoadedMesh m = load_mesh(test::test_mesh(e.name));
    EXPECT_EQ(m.mesh.num_vertices(), e.vertices) << e.name;
    EXPECT_EQ(m.mesh.num_tets(), e.tets) << e.name;
    EXPECT_TRUE(m.repairs.empty()) << e.name;
  }
}

TEST(MeshIo, BinaryMshEqualsMeditOfTheSameHand) {
  LoadedMesh medit = load_mesh(test::test_mesh("hand.mesh"));
  LoadedMesh msh = load_mesh(test::test_mesh("hand.msh"));
  ASSERT_EQ(medit.mesh.vertices.size(), msh.mesh.vertices.size());
  for (size_t i = 0; i < medit.mesh.vertices.size(); ++i) {
    EXPECT_LT((medit.mesh.vertices[i] - msh.mesh.vertices[i]).norm(), 1e-5) << i;
  }
  EXPECT_EQ(medit.mesh.tets, msh.mesh.tets);
}

TEST(MeshIo, LargeMeshSurvivesConversionThroughEveryFormat) {
  test::TempDir dir;
  LoadedMesh bunny = load_mesh(test::test_mesh("bunny.mesh"));
  for (std::string name : {"bunny.msh", "bunny.vtu", "bunny.vtk", "bunny.node", "bunny.mesh"}) {
    std::string path = dir.file(name);
    write_mesh(path, bunny.mesh, {.binary = true});
    expect_same_mesh(bunny.mesh, load_mesh(path).mesh, name);
  }
}

TEST(MeshIo, TetgenOneBasedIndices) {
  test::TempDir dir;
  dir.write("t.node", "# one-based\n4 3 0 1\n1 0 0 0 5\n2 1 0 0 5\n3 0 1 0 5\n4 0 0 1 5\n");
  dir.write("t.ele", "1 4 1\n1 1 2 3 4 7\n");
  ParsedMesh m = parse_mesh_file(dir.file("t.ele"));
  ASSERT_EQ(m.mesh.tets.size(), 1u);
  EXPECT_EQ(m.mesh.tets[0], (Tet{0, 1, 2, 3}));
  EXPECT_EQ(m.mesh.vertices[3], Vec3(0, 0, 1));
}

TEST(MeshIo, Vtk51OffsetsLayoutAndMixedCells) {
  test::TempDir dir;
  std::string path =
      dir.write("m.vtk",
                "# vtk DataFile Version 5.1\nmixed\nASCII\nDATASET UNSTRUCTURED_GRID\n"
                "POINTS 5 float\n0 0 0 1 0 0 0 1 0 0 0 1 1 1 1\n"
                "CELLS 3 7\nOFFSETS vtktypeint64\n0 4 7\nCONNECTIVITY vtktypeint64\n0 1 2 3 1 2 4\n"
                "CELL_TYPES 2\n10\n5\nPOINT_DATA 5\n");
  ParsedMesh m = parse_mesh_file(path);
  ASSERT_EQ(m.mesh.tets.size(), 1u);
  EXPECT_EQ(m.mesh.tets[0], (Tet{0, 1, 2, 3}));
  ASSERT_FALSE(m.notes.empty());
}

TEST(MeshIo, VtuWithPointAndCellData) {
  test::TempDir dir;
  TetMesh mesh = sample_mesh();
  Field displacement{"displacement", 3, std::vector<double>(mesh.vertices.size() * 3, 0.25)};
  Field energy{"strain_energy_density", 1, std::vector<double>(mesh.tets.size(), 2.0)};
  for (bool base64 : {false, true}) {
    std::string path = dir.file(base64 ? "b.vtu" : "a.vtu");
    write_vtu(path, mesh, {{displacement}, {energy}}, base64);
    std::string text = read_file(path);
    EXPECT_NE(text.find("Name=\"displacement\" NumberOfComponents=\"3\""), std::string::npos);
    EXPECT_NE(text.find("Name=\"strain_energy_density\""), std::string::npos);
    expect_same_mesh(mesh, parse_mesh_file(path).mesh, path);
  }
}

TEST(MeshIo, SurfaceWriters) {
  test::TempDir dir;
  TetMesh mesh = make_box_mesh({.nx = 2, .ny = 2, .nz = 2});
  write_mesh(dir.file("s.obj"), mesh);
  write_mesh(dir.file("s.stl"), mesh);
  write_mesh(dir.file("b.stl"), mesh, {.binary = true});
  std::string obj = read_file(dir.file("s.obj"));
  size_t faces = 0;
  for (size_t pos = 0; (pos = obj.find("\nf ", pos)) != std::string::npos; ++pos) ++faces;
  EXPECT_EQ(faces, 6u * 4u * 2u);
  std::string stl = read_file(dir.file("s.stl"));
  size_t facets = 0;
  for (size_t pos = 0; (pos = stl.find("facet normal", pos)) != std::string::npos; ++pos) ++facets;
  EXPECT_EQ(facets, 48u);
  EXPECT_EQ(read_file(dir.file("b.stl")).size(), 84u + 50u * 48u);
  EXPECT_THROW(parse_mesh_file(dir.file("s.obj")), MeshError);
}

}  // namespace
}  // namespace softbody
