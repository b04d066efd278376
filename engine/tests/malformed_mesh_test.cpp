// Malformed and invalid mesh files: each must give its own specific error naming the file, and the
// line or element where one applies.
#include <gtest/gtest.h>

#include "engine/io/mesh_error.h"
#include "engine/mesh/validation.h"
#include "engine/tests/test_support.h"

namespace softbody {
namespace {

struct Malformed {
  std::string name;  // test name
  std::string file;  // file name (extension picks the format)
  std::string content;
  std::string expected;  // substring of the error message, after "<path>"
};

const std::string kNode = "4 3 0 0\n0 0 0 0\n1 1 0 0\n2 0 1 0\n3 0 0 1\n";
const std::string kMedit =
    "MeshVersionFormatted 1\nDimension 3\nVertices\n4\n0 0 0 0\n1 0 0 0\n0 1 0 0\n0 0 1 0\n";
const std::string kVtkHead = "# vtk DataFile Version 4.2\nt\nASCII\nDATASET UNSTRUCTURED_GRID\n";

std::vector<Malformed> cases() {
  return {
      {"MshUnsupportedVersion", "v3.msh", "$MeshFormat\n3.0 0 8\n$EndMeshFormat\n",
       ":2: MSH version 3.0 is not supported"},
      {"MshMissingEndNodes", "noend.msh",
       "$MeshFormat\n4.1 0 8\n$EndMeshFormat\n$Nodes\n1 1 1 1\n3 1 0 1\n1\n0 0 0\n$Elements\n",
       ":9: expected '$EndNodes', found '$Elements'"},
      {"MshUndefinedNode", "undef.msh",
       "$MeshFormat\n2.2 0 8\n$EndMeshFormat\n$Nodes\n4\n1 0 0 0\n2 1 0 0\n3 0 1 0\n4 0 0 "
       "1\n$EndNodes\n"
       "$Elements\n1\n1 4 0 1 2 3 9\n$EndElements\n",
       ":13: element 1 references node 9, which $Nodes does not define"},
      {"MshTruncatedBinary", "trunc.msh",
       std::string("$MeshFormat\n2.2 1 8\n") + std::string("\x01\x00\x00\x00", 4) +
           "\n$EndMeshFormat\n$Nodes\n4\n" + std::string(10, '\0'),
       "file ends in the middle of binary data"},
      {"MshBadNumber", "num.msh",
       "$MeshFormat\n2.2 0 8\n$EndMeshFormat\n$Nodes\n1\n1 0 zero 0\n$EndNodes\n",
       ":6: expected a node coordinate (a number), found 'zero'"},
      {"MshQuadraticTets", "quad.msh",
       "$MeshFormat\n2.2 0 8\n$EndMeshFormat\n$Nodes\n1\n1 0 0 0\n$EndNodes\n$Elements\n1\n7 11 0 "
       "1 1 1 1 1 1 1 1 1 1\n$EndElements\n",
       "element 7 is a 10-node (quadratic) tetrahedron"},
      {"MeditTruncatedSection", "short.mesh", kMedit + "Tetrahedra\n2\n1 2 3 4 0\n",
       "unexpected end of file while reading a tetrahedron vertex index"},
      {"MeditIndexOutOfRange", "range.mesh", kMedit + "Tetrahedra\n1\n1 2 3 5 0\nEnd\n",
       ":11: a tetrahedron vertex index 5 is out of range [1, 4]"},
      {"MeditUnknownKeyword", "kw.mesh", kMedit + "Banana\n1\n",
       ":9: unknown MEDIT keyword 'Banana'"},
      {"MeditNotThreeDimensional", "dim.mesh", "MeshVersionFormatted 1\nDimension 2\n",
       ":2: dimension 2 is not supported"},
      {"TetgenMissingEle", "lonely.node", kNode, "lonely.ele: missing: a TetGen mesh needs both"},
      {"TetgenIndexOutOfSequence", "seq.node", "3 3 0 0\n0 0 0 0\n1 1 0 0\n5 0 1 0\n",
       ":4: point index 5 out of sequence"},
      {"VtkNotUnstructured", "poly.vtk", "# vtk DataFile Version 4.2\nt\nASCII\nDATASET POLYDATA\n",
       ":4: dataset type POLYDATA is not supported"},
      {"VtkCellTypeCountMismatch", "types.vtk",
       kVtkHead +
           "POINTS 4 double\n0 0 0 1 0 0 0 1 0 0 0 1\nCELLS 1 5\n4 0 1 2 3\nCELL_TYPES 2\n10 10\n",
       "CELL_TYPES lists 2 cells but CELLS has 1"},
      {"VtkPointOutOfRange", "oor.vtk",
       kVtkHead +
           "POINTS 4 double\n0 0 0 1 0 0 0 1 0 0 0 1\nCELLS 1 5\n4 0 1 2 7\nCELL_TYPES 1\n10\n",
       "cell 0 references point 7, but there are 4 points"},
      {"VtuInvalidBase64", "b64.vtu",
       "<VTKFile type=\"UnstructuredGrid\"><UnstructuredGrid><Piece NumberOfPoints=\"1\" "
       "NumberOfCells=\"0\">\n<Points>\n"
       "<DataArray type=\"Float64\" NumberOfComponents=\"3\" "
       "format=\"binary\">AAAA!!!!</DataArray></Points>"
       "<Cells><DataArray Name=\"connectivity\" type=\"Int32\"></DataArray><DataArray "
       "Name=\"offsets\" type=\"Int32\"></DataArray>"
       "<DataArray Name=\"types\" "
       "type=\"UInt8\"></DataArray></Cells></Piece></UnstructuredGrid></VTKFile>",
       ":3: invalid character '!' in base64 data"},
      // A forged count must not make the reader reserve memory for it (the fuzzer's find).
      {"VtuHugeDeclaredCount", "huge.vtu",
       "<VTKFile type=\"UnstructuredGrid\"><UnstructuredGrid><Piece "
       "NumberOfPoints=\"400000000000000000\" NumberOfCells=\"0\">\n<Points>\n"
       "<DataArray type=\"Float64\" NumberOfComponents=\"3\" "
       "format=\"ascii\">0 0 0</DataArray></Points>"
       "<Cells><DataArray Name=\"connectivity\" type=\"Int32\"></DataArray><DataArray "
       "Name=\"offsets\" type=\"Int32\"></DataArray>"
       "<DataArray Name=\"types\" "
       "type=\"UInt8\"></DataArray></Cells></Piece></UnstructuredGrid></VTKFile>",
       "huge.vtu"},
      // Cell-table values far outside an integer's range (or NaN) were cast to integers: undefined
      // behaviour, found by the fuzzer. Now they are the file's error.
      {"VtuCellTypeOutOfRange", "type.vtu",
       "<VTKFile type=\"UnstructuredGrid\"><UnstructuredGrid><Piece NumberOfPoints=\"4\" "
       "NumberOfCells=\"1\">\n<Points><DataArray type=\"Float64\" NumberOfComponents=\"3\" "
       "format=\"ascii\">0 0 0 1 0 0 0 1 0 0 0 1</DataArray></Points>\n<Cells>"
       "<DataArray Name=\"connectivity\" type=\"Int32\" format=\"ascii\">0 1 2 3</DataArray>"
       "<DataArray Name=\"offsets\" type=\"Int32\" format=\"ascii\">4</DataArray>\n"
       "<DataArray Name=\"types\" type=\"Float64\" format=\"ascii\">1.4e56</DataArray></Cells>"
       "</Piece></UnstructuredGrid></VTKFile>",
       ":4: a cell type is 1.4e+56: not a whole number in [0, 255]"},
      {"VtuOffsetNotANumber", "nan.vtu",
       "<VTKFile type=\"UnstructuredGrid\"><UnstructuredGrid><Piece NumberOfPoints=\"4\" "
       "NumberOfCells=\"1\">\n<Points><DataArray type=\"Float64\" NumberOfComponents=\"3\" "
       "format=\"ascii\">0 0 0 1 0 0 0 1 0 0 0 1</DataArray></Points>\n<Cells>"
       "<DataArray Name=\"connectivity\" type=\"Int32\" format=\"ascii\">0 1 2 3</DataArray>\n"
       "<DataArray Name=\"offsets\" type=\"Float64\" format=\"ascii\">nan</DataArray>"
       "<DataArray Name=\"types\" type=\"UInt8\" format=\"ascii\">10</DataArray></Cells>"
       "</Piece></UnstructuredGrid></VTKFile>",
       ":4: the last offset is nan: not a whole number"},
      {"CountBeyondTheFile", "forged.mesh",
       "MeshVersionFormatted 1\nDimension 3\nVertices\n900000000\n0 0 0 0\n",
       ":4: the number of vertices 900000000 cannot fit in the 9 bytes that follow"},
      {"VtuMalformedXml", "xml.vtu",
       "<VTKFile type=\"UnstructuredGrid\">\n<UnstructuredGrid>\n<Piece>\n</VTKFile>",
       "malformed XML"},
      {"VtuCompressed", "z.vtu",
       "<VTKFile type=\"UnstructuredGrid\" compressor=\"vtkZLibDataCompressor\"></VTKFile>",
       "compressed VTU (vtkZLibDataCompressor) is not supported"},
      {"UnknownExtension", "mesh.xyz", "1 2 3", "unknown mesh file extension '.xyz'"},
      {"ContentContradictsExtension", "liar.msh", kMedit,
       "the extension says Gmsh MSH but the content looks like MEDIT .mesh"},
      {"NoTetrahedra", "empty.mesh", kMedit + "End\n", "the file contains no tetrahedra"},
      {"DegenerateTet", "flat.mesh",
       "MeshVersionFormatted 1\nDimension 3\nVertices\n4\n0 0 0 0\n1 0 0 0\n0 1 0 0\n1 1 0 "
       "0\nTetrahedra\n1\n1 2 3 4 0\n",
       "tetrahedron 0 (vertices 0 1 2 3): zero volume"},
      {"RepeatedCorner", "rep.mesh", kMedit + "Tetrahedra\n1\n1 2 2 4 0\n",
       "tetrahedron 0 (vertices 0 1 1 3): uses vertex 1 twice"},
      {"NonFiniteCoordinate", "nan.mesh",
       "MeshVersionFormatted 1\nDimension 3\nVertices\n4\n0 0 0 0\n1 0 nan 0\n0 1 0 0\n0 0 1 "
       "0\nTetrahedra\n1\n1 2 3 4 0\n",
       "vertex 1 has a non-finite coordinate"},
      {"DuplicateTet", "dup.mesh", kMedit + "Tetrahedra\n2\n1 2 3 4 0\n2 1 4 3 0\n",
       "tetrahedron 1 (vertices 1 0 3 2): duplicates tetrahedron 0"},
      {"UnreferencedVertex", "unref.mesh",
       "MeshVersionFormatted 1\nDimension 3\nVertices\n5\n0 0 0 0\n1 0 0 0\n0 1 0 0\n0 0 1 0\n7 7 "
       "7 0\nTetrahedra\n1\n1 2 3 4 0\n",
       "vertex 4 is not used by any tetrahedron (1 unreferenced vertices"},
      {"InvertedTet", "inv.mesh",
       "MeshVersionFormatted 1\nDimension 3\nVertices\n5\n0 0 0 0\n1 0 0 0\n0 1 0 0\n0 0 1 0\n0.6 "
       "0.6 0.6 0\nTetrahedra\n2\n1 2 3 4 0\n2 3 5 4 0\n",
       "tetrahedron 1 (vertices 1 2 4 3): negative volume (inverted in the rest state; 1 of 2"},
  };
}

class MalformedMesh : public testing::TestWithParam<Malformed> {};

TEST_P(MalformedMesh, GivesItsSpecificError) {
  test::TempDir dir;
  const Malformed& m = GetParam();
  std::string path = dir.write(m.file, m.content);
  try {
    load_mesh(path);
    FAIL() << "no error for " << m.name;
  } catch (const MeshError& e) {
    std::string message = e.what();
    EXPECT_NE(message.find(m.expected), std::string::npos)
        << "message: " << message << "\nexpected: " << m.expected;
    // Every message names the file it is about.
    EXPECT_NE(message.find(m.file.substr(0, m.file.find('.'))), std::string::npos) << message;
  }
}

INSTANTIATE_TEST_SUITE_P(AllProblems, MalformedMesh, testing::ValuesIn(cases()),
                         [](const testing::TestParamInfo<Malformed>& param_info) {
                           return param_info.param.name;
                         });

}  // namespace
}  // namespace softbody
