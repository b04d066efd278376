// VTK XML UnstructuredGrid (.vtu) with DataArrays in "ascii" or inline "binary" (base64) format,
// uncompressed. Appended data and compressed files are rejected with a clear message.
// XML parsing: pugixml; base64: libb64 (both Debian packages).
// libb64's C headers have no extern "C" guards of their own.
extern "C" {
#include <b64/cdecode.h>
#include <b64/cencode.h>
}

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstring>
#include <pugixml.hpp>
#include <sstream>

#include "engine/io/io_util.h"
#include "engine/io/mesh_io.h"
#include "engine/io/text_scanner.h"

namespace softbody {
namespace {

constexpr int kVtkTetra = 10;

struct VtuContext {
  const std::string& path;
  std::string_view content;
  bool header_uint64;
  bool big_endian;
};

long line_of(const VtuContext& ctx, const pugi::xml_node& node) {
  auto offset = static_cast<size_t>(node.offset_debug());
  if (offset > ctx.content.size()) return 0;
  return 1 + static_cast<long>(std::count(ctx.content.begin(),
                                          ctx.content.begin() + static_cast<long>(offset), '\n'));
}

[[noreturn]] void fail_at(const VtuContext& ctx, const pugi::xml_node& node,
                          const std::string& problem) {
  throw MeshError(ctx.path, problem, {.line = line_of(ctx, node)});
}

std::string decode_base64_chunk(const VtuContext& ctx, const pugi::xml_node& node,
                                std::string_view text) {
  for (char c : text) {
    if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '+' || c == '/' || c == '=' ||
          std::isspace(static_cast<unsigned char>(c)))) {
      fail_at(ctx, node, std::string("invalid character '") + c + "' in base64 data");
    }
  }
  std::string out(text.size() * 3 / 4 + 4, '\0');
  base64_decodestate state;
  base64_init_decodestate(&state);
  int n = base64_decode_block(text.data(), static_cast<int>(text.size()), out.data(), &state);
  out.resize(static_cast<size_t>(n));
  return out;
}

size_t value_size(const VtuContext& ctx, const pugi::xml_node& node, std::string_view type) {
  if (type == "Float64" || type == "Int64" || type == "UInt64") return 8;
  if (type == "Float32" || type == "Int32" || type == "UInt32") return 4;
  if (type == "Int16" || type == "UInt16") return 2;
  if (type == "Int8" || type == "UInt8") return 1;
  fail_at(ctx, node, "unsupported DataArray type '" + std::string(type) + "'");
}

double read_value(BinaryReader& in, std::string_view type) {
  if (type == "Float64") return in.read<double>("Float64 value");
  if (type == "Float32") return static_cast<double>(in.read<float>("Float32 value"));
  if (type == "Int64") return static_cast<double>(in.read<std::int64_t>("Int64 value"));
  if (type == "UInt64") return static_cast<double>(in.read<std::uint64_t>("UInt64 value"));
  if (type == "Int32") return in.read<std::int32_t>("Int32 value");
  if (type == "UInt32") return in.read<std::uint32_t>("UInt32 value");
  if (type == "Int16") return in.read<std::int16_t>("Int16 value");
  if (type == "UInt16") return in.read<std::uint16_t>("UInt16 value");
  if (type == "Int8") return in.read<std::int8_t>("Int8 value");
  return in.read<std::uint8_t>("UInt8 value");
}

// The values of a DataArray, which must hold exactly `count` numbers.
std::vector<double> read_data_array(const VtuContext& ctx, const pugi::xml_node& array,
                                    size_t count) {
  std::string_view format = array.attribute("format").as_string("ascii");
  std::string_view type = array.attribute("type").as_string();
  size_t size = value_size(ctx, array, type);
  std::string_view text = array.child_value();
  std::vector<double> values;
  // `count` comes from the file's NumberOfPoints/Cells: reserve no more than its text could hold
  // (a value takes at least one character), or a forged header asks for exabytes (found by the
  // mesh loader fuzzer).
  values.reserve(std::min(count, text.size()));
  if (format == "ascii") {
    TextScanner scanner(ctx.path, text);
    scanner.seek(0, line_of(ctx, array));
    while (!scanner.at_end()) values.push_back(scanner.read_double("a DataArray value"));
  } else if (format == "binary") {
    // VTK prefixes the data with its byte count. Writers encode header and data either as one
    // base64 stream or as two (the header padded on its own): a padded header chunk tells.
    size_t start = text.find_first_not_of(" \t\r\n");
    text = start == std::string_view::npos ? std::string_view{} : text.substr(start);
    size_t header_bytes = ctx.header_uint64 ? 8 : 4;
    size_t header_chars = (header_bytes + 2) / 3 * 4;
    std::string bytes;
    if (text.size() >= header_chars && text[header_chars - 1] == '=') {
      bytes = decode_base64_chunk(ctx, array, text.substr(0, header_chars)) +
              decode_base64_chunk(ctx, array, text.substr(header_chars));
    } else {
      bytes = decode_base64_chunk(ctx, array, text);
    }
    BinaryReader in(ctx.path, bytes, 0, ctx.big_endian);
    std::uint64_t declared = ctx.header_uint64 ? in.read<std::uint64_t>("data header")
                                               : in.read<std::uint32_t>("data header");
    if (declared != count * size || bytes.size() < header_bytes + declared) {
      fail_at(ctx, array,
              "binary DataArray '" + std::string(array.attribute("Name").as_string()) + "' holds " +
                  std::to_string(bytes.size() - header_bytes) + " bytes (header says " +
                  std::to_string(declared) + "), expected " + std::to_string(count * size));
    }
    for (size_t i = 0; i < count; ++i) values.push_back(read_value(in, type));
  } else {
    fail_at(ctx, array,
            "DataArray format '" + std::string(format) +
                "' is not supported (ascii and inline binary are; re-save without appended data)");
  }
  if (values.size() != count) {
    fail_at(ctx, array,
            "DataArray '" + std::string(array.attribute("Name").as_string()) + "' has " +
                std::to_string(values.size()) + " values, expected " + std::to_string(count));
  }
  return values;
}

// A cell-table value (read as a double whatever the array's type) as a whole number in [0, max];
// otherwise the file's error naming `what`. Casting a NaN or out-of-range double to an integer is
// undefined behaviour, so nothing is cast before this check (found by the mesh fuzzer).
long long whole_number(const VtuContext& ctx, const pugi::xml_node& node, double value, double max,
                       const std::string& what) {
  if (!(value >= 0 && value <= max) || value != std::floor(value)) {
    std::ostringstream message;
    message << what << " is " << value << ": not a whole number in [0, "
            << static_cast<long long>(max) << "]";
    fail_at(ctx, node, message.str());
  }
  return static_cast<long long>(value);
}

pugi::xml_node named_array(const VtuContext& ctx, const pugi::xml_node& cells, const char* name) {
  pugi::xml_node array = cells.find_child_by_attribute("DataArray", "Name", name);
  if (!array) fail_at(ctx, cells, std::string("<Cells> has no DataArray named '") + name + "'");
  return array;
}

}  // namespace

TetMesh parse_vtu(const std::string& path, std::string_view content,
                  std::vector<std::string>& notes) {
  pugi::xml_document doc;
  pugi::xml_parse_result parsed = doc.load_buffer(content.data(), content.size());
  if (!parsed) {
    long line =
        1 + static_cast<long>(std::count(
                content.begin(),
                content.begin() + std::min<long>(parsed.offset, static_cast<long>(content.size())),
                '\n'));
    throw MeshError(path, std::string("malformed XML: ") + parsed.description(), {.line = line});
  }
  pugi::xml_node file = doc.child("VTKFile");
  VtuContext ctx{path, content, false, false};
  if (!file) throw MeshError(path, "no <VTKFile> element");
  if (std::string_view(file.attribute("type").as_string()) != "UnstructuredGrid") {
    fail_at(ctx, file,
            "VTKFile type '" + std::string(file.attribute("type").as_string()) +
                "' is not supported (UnstructuredGrid is)");
  }
  if (file.attribute("compressor")) {
    fail_at(ctx, file,
            "compressed VTU (" + std::string(file.attribute("compressor").as_string()) +
                ") is not supported; save it uncompressed");
  }
  ctx.header_uint64 =
      std::string_view(file.attribute("header_type").as_string("UInt32")) == "UInt64";
  ctx.big_endian =
      std::string_view(file.attribute("byte_order").as_string("LittleEndian")) == "BigEndian";
  pugi::xml_node grid = file.child("UnstructuredGrid");
  pugi::xml_node piece = grid.child("Piece");
  if (!piece) fail_at(ctx, file, "no <UnstructuredGrid><Piece>");
  if (piece.next_sibling("Piece")) notes.push_back("only the first <Piece> was read");
  long long num_points = piece.attribute("NumberOfPoints").as_llong(-1);
  long long num_cells = piece.attribute("NumberOfCells").as_llong(-1);
  if (num_points < 0 || num_cells < 0)
    fail_at(ctx, piece, "<Piece> lacks NumberOfPoints or NumberOfCells");

  pugi::xml_node points = piece.child("Points").child("DataArray");
  if (!points) fail_at(ctx, piece, "<Piece> has no <Points><DataArray>");
  if (points.attribute("NumberOfComponents").as_int(1) != 3)
    fail_at(ctx, points, "points must have 3 components");
  std::vector<double> xyz = read_data_array(ctx, points, static_cast<size_t>(num_points) * 3);
  TetMesh mesh;
  mesh.vertices.resize(static_cast<size_t>(num_points));
  for (size_t i = 0; i < mesh.vertices.size(); ++i)
    mesh.vertices[i] = {xyz[3 * i], xyz[3 * i + 1], xyz[3 * i + 2]};

  pugi::xml_node cells = piece.child("Cells");
  if (!cells) fail_at(ctx, piece, "<Piece> has no <Cells>");
  std::vector<double> offsets =
      read_data_array(ctx, named_array(ctx, cells, "offsets"), static_cast<size_t>(num_cells));
  std::vector<double> types =
      read_data_array(ctx, named_array(ctx, cells, "types"), static_cast<size_t>(num_cells));
  pugi::xml_node offsets_node = named_array(ctx, cells, "offsets");
  constexpr double kLargestCount = 9007199254740992.0;  // 2^53: doubles hold every count below
  const auto conn_size =
      static_cast<size_t>(offsets.empty() ? 0
                                          : whole_number(ctx, offsets_node, offsets.back(),
                                                         kLargestCount, "the last offset"));
  pugi::xml_node conn_node = named_array(ctx, cells, "connectivity");
  std::vector<double> conn = read_data_array(ctx, conn_node, conn_size);
  pugi::xml_node types_node = named_array(ctx, cells, "types");
  long long skipped = 0;
  for (size_t c = 0; c < offsets.size(); ++c) {
    const double size = static_cast<double>(conn.size());
    const long long begin =
        c == 0 ? 0 : whole_number(ctx, offsets_node, offsets[c - 1], size, "an offset");
    const long long end = whole_number(ctx, offsets_node, offsets[c], size, "an offset");
    if (end < begin) fail_at(ctx, conn_node, "offsets are not increasing");
    if (whole_number(ctx, types_node, types[c], 255, "a cell type") != kVtkTetra) {
      ++skipped;
      continue;
    }
    if (end - begin != 4)
      fail_at(ctx, conn_node,
              "cell " + std::to_string(c) + " is a tetrahedron with " +
                  std::to_string(end - begin) + " points");
    Tet t;
    for (int k = 0; k < 4; ++k) {
      double v = conn[static_cast<size_t>(begin + k)];
      if (!(v >= 0 && v < static_cast<double>(num_points)) || v != std::floor(v)) {
        std::ostringstream message;  // v as a double: it may be no integer at all
        message << "cell " << c << " references point " << v << ", but there are " << num_points
                << " points";
        throw MeshError(path, message.str(),
                        {.line = line_of(ctx, conn_node), .element = static_cast<long>(c)});
      }
      t[static_cast<size_t>(k)] = static_cast<Index>(v);
    }
    mesh.tets.push_back(t);
  }
  if (skipped > 0) notes.push_back("ignored " + std::to_string(skipped) + " non-tetrahedral cells");
  return mesh;
}

namespace {

class DataArrayWriter {
 public:
  DataArrayWriter(std::ostream& out, bool base64) : out_(out), base64_(base64) {}

  template <typename T>
  void write(const char* vtk_type, const char* name, int components, const std::vector<T>& values) {
    out_ << "        <DataArray type=\"" << vtk_type << "\"";
    if (name[0] != '\0') out_ << " Name=\"" << name << "\"";
    out_ << " NumberOfComponents=\"" << components << "\" format=\""
         << (base64_ ? "binary" : "ascii") << "\">\n";
    if (base64_) {
      std::string bytes(8 + values.size() * sizeof(T), '\0');
      std::uint64_t count = values.size() * sizeof(T);
      std::memcpy(bytes.data(), &count, 8);
      if (!values.empty()) std::memcpy(bytes.data() + 8, values.data(), values.size() * sizeof(T));
      out_ << "          " << encode(bytes) << '\n';
    } else {
      out_ << "         ";
      for (const T& v : values) out_ << ' ' << +v;
      out_ << '\n';
    }
    out_ << "        </DataArray>\n";
  }

 private:
  static std::string encode(const std::string& bytes) {
    std::string out(bytes.size() * 4 / 3 + bytes.size() / 36 + 16, '\0');
    base64_encodestate state;
    base64_init_encodestate(&state);
    int n = base64_encode_block(bytes.data(), static_cast<int>(bytes.size()), out.data(), &state);
    n += base64_encode_blockend(out.data() + n, &state);
    out.resize(static_cast<size_t>(n));
    std::erase(out, '\n');  // libb64 wraps lines; VTK wants one run of characters
    return out;
  }

  std::ostream& out_;
  bool base64_;
};

}  // namespace

void write_vtu(const std::string& path, const TetMesh& mesh, const VtuData& data, bool base64) {
  for (const Field& f : data.point_data) {
    if (f.values.size() != mesh.vertices.size() * static_cast<size_t>(f.components)) {
      throw MeshError(path, "point field '" + f.name + "' has the wrong number of values");
    }
  }
  for (const Field& f : data.cell_data) {
    if (f.values.size() != mesh.tets.size() * static_cast<size_t>(f.components)) {
      throw MeshError(path, "cell field '" + f.name + "' has the wrong number of values");
    }
  }
  std::ofstream out = open_for_writing(path);
  DataArrayWriter arrays(out, base64);
  out << "<?xml version=\"1.0\"?>\n<VTKFile type=\"UnstructuredGrid\" version=\"1.0\" "
         "byte_order=\"LittleEndian\" header_type=\"UInt64\">\n  <UnstructuredGrid>\n"
      << "    <Piece NumberOfPoints=\"" << mesh.vertices.size() << "\" NumberOfCells=\""
      << mesh.tets.size() << "\">\n";
  auto write_fields = [&](const char* tag, const std::vector<Field>& fields) {
    if (fields.empty()) return;
    out << "      <" << tag << ">\n";
    for (const Field& f : fields) arrays.write("Float64", f.name.c_str(), f.components, f.values);
    out << "      </" << tag << ">\n";
  };
  write_fields("PointData", data.point_data);
  write_fields("CellData", data.cell_data);
  std::vector<double> xyz;
  xyz.reserve(mesh.vertices.size() * 3);
  for (const Vec3& x : mesh.vertices) xyz.insert(xyz.end(), {x[0], x[1], x[2]});
  out << "      <Points>\n";
  arrays.write("Float64", "", 3, xyz);
  out << "      </Points>\n      <Cells>\n";
  std::vector<std::int64_t> connectivity, offsets;
  std::vector<std::uint8_t> types(mesh.tets.size(), kVtkTetra);
  for (const Tet& t : mesh.tets) {
    connectivity.insert(connectivity.end(), t.begin(), t.end());
    offsets.push_back(static_cast<std::int64_t>(connectivity.size()));
  }
  arrays.write("Int64", "connectivity", 1, connectivity);
  arrays.write("Int64", "offsets", 1, offsets);
  arrays.write("UInt8", "types", 1, types);
  out << "      </Cells>\n    </Piece>\n  </UnstructuredGrid>\n</VTKFile>\n";
  finish_writing(out, path);
}

void write_state_vtu(const std::string& path, const TetMesh& rest, const Vec3Array& positions,
                     const Vec3Array* velocities, const std::vector<double>* energy_density,
                     bool base64) {
  if (positions.size() != rest.vertices.size())
    throw MeshError(path, "positions do not match the mesh");
  auto vector_field = [](const char* name, auto&& value, size_t n) {
    Field f{name, 3, {}};
    f.values.reserve(3 * n);
    for (size_t i = 0; i < n; ++i) {
      const Vec3 v = value(i);
      f.values.insert(f.values.end(), {v.x(), v.y(), v.z()});
    }
    return f;
  };
  VtuData data;
  data.point_data.push_back(vector_field(
      "displacement", [&](size_t i) { return Vec3(positions[i] - rest.vertices[i]); },
      positions.size()));
  if (velocities != nullptr) {
    if (velocities->size() != positions.size())
      throw MeshError(path, "velocities do not match the mesh");
    data.point_data.push_back(vector_field(
        "velocity", [&](size_t i) { return (*velocities)[i]; }, positions.size()));
  }
  if (energy_density != nullptr)
    data.cell_data.push_back({"strain_energy_density", 1, *energy_density});
  TetMesh deformed{positions, rest.tets, {}};
  write_vtu(path, deformed, data, base64);
}

}  // namespace softbody
