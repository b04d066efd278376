// VTK legacy files (.vtk), DATASET UNSTRUCTURED_GRID, ASCII or BINARY (big-endian), in both the
// classic CELLS layout (count-prefixed connectivity, versions <= 4.2) and the 5.1 layout
// (OFFSETS + CONNECTIVITY arrays). Cells of type VTK_TETRA (10) are kept, others skipped.
#include <map>

#include "engine/io/io_util.h"
#include "engine/io/mesh_io.h"
#include "engine/io/text_scanner.h"

namespace softbody {
namespace {

constexpr int kVtkTetra = 10;

class VtkLegacyReader {
 public:
  VtkLegacyReader(const std::string& path, std::string_view content,
                  std::vector<std::string>& notes)
      : path_(path), content_(content), in_(path, content), notes_(notes) {}

  TetMesh read() {
    std::string_view first = in_.rest_of_line();
    if (!first.starts_with("# vtk DataFile Version")) in_.fail_at_line(1, "not a VTK legacy file");
    in_.rest_of_line();  // title
    std::string_view encoding = in_.next("ASCII or BINARY");
    if (encoding == "BINARY") {
      binary_ = true;
    } else if (encoding != "ASCII") {
      in_.fail("expected ASCII or BINARY, found '" + std::string(encoding) + "'");
    }
    in_.expect("DATASET");
    std::string_view dataset = in_.next("the dataset type");
    if (dataset != "UNSTRUCTURED_GRID") {
      in_.fail("dataset type " + std::string(dataset) + " is not supported (UNSTRUCTURED_GRID is)");
    }
    std::vector<long long> cell_offsets, connectivity;
    std::vector<long long> cell_types;
    bool have_points = false;
    while (!in_.at_end()) {
      std::string_view keyword = in_.next("a section keyword");
      if (keyword == "POINTS") {
        read_points();
        have_points = true;
      } else if (keyword == "CELLS") {
        read_cells(cell_offsets, connectivity);
      } else if (keyword == "CELL_TYPES") {
        long long n = in_.read_count("the number of cell types");
        cell_types = read_ints(n, "int");
      } else if (keyword == "POINT_DATA" || keyword == "CELL_DATA") {
        notes_.push_back("ignored " + std::string(keyword) + " and everything after it");
        break;
      } else if (keyword == "METADATA" || keyword == "FIELD") {
        in_.fail("section " + std::string(keyword) + " before the cells is not supported");
      } else {
        in_.fail("unknown keyword '" + std::string(keyword) + "'");
      }
    }
    if (!have_points) throw MeshError(path_, "no POINTS section");
    if (cell_offsets.empty()) throw MeshError(path_, "no CELLS section");
    if (cell_types.size() + 1 != cell_offsets.size()) {
      throw MeshError(path_, "CELL_TYPES lists " + std::to_string(cell_types.size()) +
                                 " cells but CELLS has " + std::to_string(cell_offsets.size() - 1));
    }
    std::map<long long, long long> skipped;
    for (size_t c = 0; c < cell_types.size(); ++c) {
      long long begin = cell_offsets[c], end = cell_offsets[c + 1];
      if (cell_types[c] != kVtkTetra) {
        ++skipped[cell_types[c]];
        continue;
      }
      if (end - begin != 4) {
        throw MeshError(path_,
                        "cell " + std::to_string(c) + " is VTK_TETRA but has " +
                            std::to_string(end - begin) + " points",
                        {.element = static_cast<long>(c)});
      }
      Tet t;
      for (int k = 0; k < 4; ++k) {
        long long v = connectivity[static_cast<size_t>(begin + k)];
        if (v < 0 || v >= mesh_.num_vertices()) {
          throw MeshError(path_,
                          "cell " + std::to_string(c) + " references point " + std::to_string(v) +
                              ", but there are " + std::to_string(mesh_.num_vertices()) + " points",
                          {.element = static_cast<long>(c)});
        }
        t[static_cast<size_t>(k)] = static_cast<Index>(v);
      }
      mesh_.tets.push_back(t);
    }
    for (const auto& [type, count] : skipped) {
      notes_.push_back("ignored " + std::to_string(count) + " cells of VTK type " +
                       std::to_string(type));
    }
    return std::move(mesh_);
  }

 private:
  void read_points() {
    long long n = in_.read_count("the number of points");
    std::string_view type = in_.next("the point data type");
    if (type != "float" && type != "double") {
      in_.fail("point type " + std::string(type) + " is not supported (float and double are)");
    }
    mesh_.vertices.resize(static_cast<size_t>(n));
    if (!binary_) {
      for (auto& x : mesh_.vertices) {
        for (int k = 0; k < 3; ++k) x[k] = in_.read_double("a point coordinate");
      }
      return;
    }
    in_.skip_line();
    BinaryReader bin(path_, content_, in_.offset(), true);
    for (auto& x : mesh_.vertices) {
      for (int k = 0; k < 3; ++k) {
        x[k] = type == "float" ? static_cast<double>(bin.read<float>("point coordinate"))
                               : bin.read<double>("point coordinate");
      }
    }
    in_.seek(bin.offset(), in_.line());
  }

  // Reads n integers of a VTK type name ("int", "vtktypeint64", ...).
  std::vector<long long> read_ints(long long n, std::string_view type) {
    // The count comes from the header: no more values than the rest of the file can hold (each
    // takes at least 2 bytes), or a forged size allocates gigabytes (found by the fuzzer).
    const long long left = static_cast<long long>(content_.size() - in_.offset());
    if (n > left / 2)
      in_.fail(std::to_string(n) + " values cannot fit in the " + std::to_string(left) +
               " bytes that follow");
    std::vector<long long> values(static_cast<size_t>(n));
    if (!binary_) {
      for (auto& v : values) v = in_.read_int("a cell value");
      return values;
    }
    in_.skip_line();
    BinaryReader bin(path_, content_, in_.offset(), true);
    bool wide = type == "vtktypeint64" || type == "long" || type == "vtkIdType";
    for (auto& v : values) {
      v = wide ? bin.read<std::int64_t>("cell value") : bin.read<std::int32_t>("cell value");
    }
    in_.seek(bin.offset(), in_.line());
    return values;
  }

  void read_cells(std::vector<long long>& offsets, std::vector<long long>& connectivity) {
    long long a = in_.read_count("the number of cells");
    long long b = in_.read_int_in("the size of the cell list", 0, 1LL << 33);
    if (in_.peek("the cell list") == "OFFSETS") {
      // Version 5.1: CELLS <number of offsets> <connectivity size>.
      in_.next("OFFSETS");
      std::string offset_type(in_.next("the offsets type"));
      offsets = read_ints(a, offset_type);
      in_.expect("CONNECTIVITY");
      std::string conn_type(in_.next("the connectivity type"));
      connectivity = read_ints(b, conn_type);
      for (size_t i = 0; i + 1 < offsets.size(); ++i) {
        if (offsets[i] > offsets[i + 1] || offsets[i + 1] > b)
          in_.fail("OFFSETS are not increasing");
      }
      return;
    }
    // Classic layout: each cell is "<npts> <id> ... <id>".
    std::vector<long long> flat = read_ints(b, "int");
    offsets = {0};
    size_t pos = 0;
    for (long long c = 0; c < a; ++c) {
      if (pos >= flat.size())
        in_.fail("CELLS list is shorter than its declared " + std::to_string(a) + " cells");
      long long count = flat[pos++];
      if (count < 0 || pos + static_cast<size_t>(count) > flat.size()) {
        in_.fail("cell " + std::to_string(c) + " has an invalid point count " +
                 std::to_string(count));
      }
      connectivity.insert(connectivity.end(), flat.begin() + static_cast<long>(pos),
                          flat.begin() + static_cast<long>(pos + static_cast<size_t>(count)));
      pos += static_cast<size_t>(count);
      offsets.push_back(static_cast<long long>(connectivity.size()));
    }
  }

  std::string path_;
  std::string_view content_;
  TextScanner in_;
  std::vector<std::string>& notes_;
  bool binary_ = false;
  TetMesh mesh_;
};

}  // namespace

TetMesh parse_vtk_legacy(const std::string& path, std::string_view content,
                         std::vector<std::string>& notes) {
  return VtkLegacyReader(path, content, notes).read();
}

void write_vtk_legacy(const std::string& path, const TetMesh& mesh, bool binary) {
  std::ofstream out = open_for_writing(path, binary);
  out << "# vtk DataFile Version 4.2\nsoftbody tetrahedral mesh\n"
      << (binary ? "BINARY" : "ASCII") << "\nDATASET UNSTRUCTURED_GRID\nPOINTS "
      << mesh.vertices.size() << " double\n";
  for (const Vec3& x : mesh.vertices) {
    if (binary) {
      for (int k = 0; k < 3; ++k) write_binary<double>(out, x[k], true);
    } else {
      out << x[0] << ' ' << x[1] << ' ' << x[2] << '\n';
    }
  }
  out << (binary ? "\n" : "") << "CELLS " << mesh.tets.size() << ' ' << mesh.tets.size() * 5
      << '\n';
  for (const Tet& t : mesh.tets) {
    if (binary) {
      write_binary<std::int32_t>(out, 4, true);
      for (Index v : t) write_binary<std::int32_t>(out, v, true);
    } else {
      out << "4 " << t[0] << ' ' << t[1] << ' ' << t[2] << ' ' << t[3] << '\n';
    }
  }
  out << (binary ? "\n" : "") << "CELL_TYPES " << mesh.tets.size() << '\n';
  for (size_t i = 0; i < mesh.tets.size(); ++i) {
    if (binary) {
      write_binary<std::int32_t>(out, kVtkTetra, true);
    } else {
      out << kVtkTetra << '\n';
    }
  }
  if (binary) out << '\n';
  finish_writing(out, path);
}

}  // namespace softbody
