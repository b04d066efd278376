// Reading rigid obstacles' surfaces (engine/io/surface_reader.h): OBJ and STL (ASCII and binary)
// round trips through the project's own writers, the OBJ records real exporters write, and
// malformed files named by file, line and problem.
#include "engine/io/surface_reader.h"

#include <gtest/gtest.h>

#include "engine/contact/rigid_surface.h"
#include "engine/io/mesh_error.h"
#include "engine/io/mesh_io.h"
#include "engine/mesh/box_generator.h"
#include "engine/tests/test_support.h"

namespace softbody {
namespace {

std::string error_of(const std::string& name, const std::string& content) {
  test::TempDir dir;
  const std::string path = dir.write(name, content);
  try {
    read_surface_mesh(path);
  } catch (const MeshError& e) {
    std::string message = e.what();
    return message.substr(message.rfind('/') + 1);  // without the temporary directory
  }
  return "read";
}

// A box's boundary written as OBJ and as ASCII and binary STL reads back as the closed surface of
// that box: the same signed distances.
TEST(SurfaceReader, BoundarySurfacesWrittenAsObjAndStlReadBackAsTheSameClosedSurface) {
  const Vec3 size(0.04, 0.02, 0.03);
  const TetMesh box = make_box_mesh({.nx = 3, .ny = 2, .nz = 2, .size = size});
  test::TempDir dir;
  write_mesh(dir.file("box.obj"), box);
  write_mesh(dir.file("ascii.stl"), box, {.binary = false});
  write_mesh(dir.file("binary.stl"), box, {.binary = true});
  for (const std::string name : {"box.obj", "ascii.stl", "binary.stl"}) {
    SCOPED_TRACE(name);
    const SurfaceMesh mesh = read_surface_mesh(dir.file(name));
    const RigidSurface surface(mesh);
    // 2 (3x2 + 3x2 + 2x2) squares of two triangles each; the boundary's 34 vertices (the OBJ
    // also lists the interior ones, which the surface drops).
    EXPECT_EQ(mesh.triangles.size(), 64u);
    EXPECT_EQ(surface.vertices().size(), 34u);
    EXPECT_NEAR(surface.volume(), size.prod(), 1e-6 * size.prod());  // binary STL: floats
    const BoundingBox bounds = bounding_box(box.vertices);
    const Vec3 centre = (bounds.min + bounds.max) / 2;
    EXPECT_NEAR(surface.closest(centre).distance, -0.01, 1e-6);  // half the smallest side
    EXPECT_NEAR(surface.closest(centre + Vec3(0.05, 0, 0)).distance, 0.03, 1e-6);
  }
}

TEST(SurfaceReader, ObjReadsWhatExportersWrite) {
  test::TempDir dir;
  // Comments, a w coordinate, texture and normal records, groups and materials, a quad with
  // v/vt/vn references and a triangle with negative (relative) ones.
  const std::string path = dir.write("tool.obj",
                                     "# exported\nmtllib tool.mtl\no tool\n"
                                     "v 0 0 0\nv 1 0 0 1.0\nv 1 1 0\nv 0 1 0\nv 0.5 0.5 1\n"
                                     "vt 0 0\nvn 0 0 1\ng bottom\nusemtl steel\ns off\n"
                                     "f 1/1/1 4/1/1 3/1/1 2/1/1\n"
                                     "f -5//1 -4//1 -1//1\nf 2 3 5\nf 3 4 5\nf 4 1 5\n");
  const SurfaceMesh mesh = read_surface_mesh(path);
  ASSERT_EQ(mesh.vertices.size(), 5u);
  ASSERT_EQ(mesh.triangles.size(), 6u);  // the quad fanned into two
  EXPECT_EQ(mesh.triangles[0], (Triangle{0, 3, 2}));
  EXPECT_EQ(mesh.triangles[1], (Triangle{0, 2, 1}));
  EXPECT_EQ(mesh.triangles[2], (Triangle{0, 1, 4}));
  const RigidSurface pyramid(mesh);  // closed and oriented
  EXPECT_NEAR(pyramid.volume(), 1.0 / 3, 1e-15);
  // Each triangle knows its line (the quad's two share line 14), for messages.
  EXPECT_EQ(mesh.face_lines, (std::vector<long>{14, 14, 15, 16, 17, 18}));
  EXPECT_TRUE(mesh.vertex_numbers_from_file);
}

// What exporters also write: a comment ending a record's line, and an ASCII STL of several
// solids (one per part) in one file.
TEST(SurfaceReader, TrailingCommentsAndSeveralSolidsAreRead) {
  test::TempDir dir;
  const SurfaceMesh obj =
      read_surface_mesh(dir.write("commented.obj",
                                  "v 0 0 0 # origin\nv 1 0 0\nv 0 1 0\nv 0 0 1\n"
                                  "f 1 3 2 # base\nf 1 2 4\nf 1 4 3#side\nf 2 3 4\n"));
  ASSERT_EQ(obj.triangles.size(), 4u);
  EXPECT_EQ(obj.triangles[2], (Triangle{0, 3, 2}));
  EXPECT_NEAR(RigidSurface(obj).volume(), 1.0 / 6, 1e-15);

  // Two unit tetrahedra, each its own solid; the second one 2 m along x.
  const auto facet = [](const Vec3& a, const Vec3& b, const Vec3& c) {
    std::string out = "facet normal 0 0 0\nouter loop\n";
    for (const Vec3& x : {a, b, c})
      out += "vertex " + std::to_string(x.x()) + " " + std::to_string(x.y()) + " " +
             std::to_string(x.z()) + "\n";
    return out + "endloop\nendfacet\n";
  };
  const auto solid = [&](const std::string& name, double dx) {
    const Vec3 o(dx, 0, 0), x(dx + 1, 0, 0), y(dx, 1, 0), z(dx, 0, 1);
    return "solid " + name + "\n" + facet(o, y, x) + facet(o, x, z) + facet(o, z, y) +
           facet(x, y, z) + "endsolid " + name + "\n";
  };
  const SurfaceMesh stl =
      read_surface_mesh(dir.write("parts.stl", solid("first", 0) + solid("second", 2)));
  EXPECT_EQ(stl.triangles.size(), 8u);
  EXPECT_EQ(stl.vertices.size(), 8u);
  EXPECT_NEAR(RigidSurface(stl).volume(), 2.0 / 6, 1e-12);
  EXPECT_EQ(stl.face_lines.back(), 1 + 4 * 7 + 2 + 3 * 7 + 1);  // the last facet's line
}

TEST(SurfaceReader, MalformedFilesAreNamedByLineAndProblem) {
  EXPECT_EQ(error_of("a.obj", "v 0 0 0\nv 1 0\n"),
            "a.obj:2: a vertex needs 3 coordinates, found 2");
  EXPECT_EQ(error_of("b.obj", "v 0 0 0\nv 1 x 0\n"),
            "b.obj:2: expected a vertex coordinate (a finite number), found 'x'");
  EXPECT_EQ(error_of("c.obj", "v 0 0 0\nv 1 0 0\nv 0 1 0\n\nf 1 2 9\n"),
            "c.obj:5: a face names vertex 9 but 3 are defined before it");
  EXPECT_EQ(error_of("d.obj", "v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2\n"),
            "d.obj:4: a face needs at least 3 vertices, found 2");
  EXPECT_EQ(error_of("e.obj", "v 0 0 0\nf 1 a 1\n"),
            "e.obj:2: expected a face's vertex number, found 'a'");
  EXPECT_EQ(error_of("f.obj", "v 0 0 0\n"), "f.obj: no faces ('f' records): not a surface");
  EXPECT_EQ(error_of("g.stl",
                     "solid t\nfacet normal 0 0 1\nouter loop\nvertex 0 0 0\nvertex 1 0 0\n"
                     "endloop\nendfacet\nendsolid\n"),
            "g.stl:6: expected 'vertex', found 'endloop'");
  std::string truncated(84 + 50, '\0');
  truncated[80] = 2;  // two triangles announced, one held
  EXPECT_EQ(error_of("h.stl", truncated),
            "h.stl: at byte 84: the header announces 2 triangles but the file holds 1");
  // A binary STL whose header begins with "solid" (as some exporters write it), truncated: named
  // as the binary file it is, not as ASCII text that went wrong.
  std::string solid_header = truncated;
  solid_header.replace(0, 11, "solid part1");
  EXPECT_EQ(error_of("j.stl", solid_header),
            "j.stl: at byte 84: the header announces 2 triangles but the file holds 1");
  // Solids after the first are read, so their faults are found.
  EXPECT_EQ(error_of("k.stl", "solid t\nendsolid t\nsolid u\nfacet normal 0 0 1\nouter lop\n"),
            "k.stl:5: expected 'loop', found 'lop'");
  EXPECT_EQ(error_of("l.stl", "solid t\nendsolid t\nfacet\n"),
            "l.stl:3: expected 'solid', found 'facet'");
  EXPECT_EQ(error_of("i.ply", "ply\n"),
            "i.ply: unknown surface format '.ply' (supported: .obj, .stl)");
}

}  // namespace
}  // namespace softbody
