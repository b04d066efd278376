// Gmsh MSH 2.2 and 4.1, ASCII and binary. Only 4-node tetrahedra (element type 4) are kept; other
// element types (surface triangles, lines, points) are skipped and reported in the notes.
#include <map>

#include "engine/io/io_util.h"
#include "engine/io/mesh_io.h"
#include "engine/io/text_scanner.h"

namespace softbody {
namespace {

constexpr int kTetType = 4;
constexpr int kQuadraticTetType = 11;

// Nodes per element for the MSH element types (index = type), 0 for unknown types.
constexpr std::array<int, 32> kNodesPerType = {0,  2,  3,  4,  4, 8, 6,  5,  3,  6, 9,
                                               10, 27, 18, 14, 1, 8, 20, 15, 13, 9, 10,
                                               12, 15, 15, 21, 4, 5, 6,  20, 35, 56};

int nodes_per_type(int type) {
  return type > 0 && type < static_cast<int>(kNodesPerType.size())
             ? kNodesPerType[static_cast<size_t>(type)]
             : 0;
}

class GmshReader {
 public:
  GmshReader(const std::string& path, std::string_view content, std::vector<std::string>& notes)
      : path_(path), content_(content), scanner_(path, content), notes_(notes) {}

  TetMesh read() {
    read_header();
    bool have_nodes = false, have_elements = false;
    while (!scanner_.at_end()) {
      std::string_view section = scanner_.next("a section name");
      if (!section.starts_with("$")) {
        scanner_.fail("expected a section such as $Nodes, found '" + std::string(section) + "'");
      }
      std::string name(section.substr(1));
      scanner_.skip_line();
      if (name == "Nodes") {
        version_ == 41 ? read_nodes_41() : read_nodes_22();
        have_nodes = true;
      } else if (name == "Elements") {
        if (!have_nodes) scanner_.fail("$Elements appears before $Nodes");
        version_ == 41 ? read_elements_41() : read_elements_22();
        have_elements = true;
      } else {
        skip_section(name);
        continue;
      }
      scanner_.expect("$End" + name);
    }
    if (!have_nodes) throw MeshError(path_, "no $Nodes section");
    if (!have_elements) throw MeshError(path_, "no $Elements section");
    for (const auto& [type, count] : skipped_) {
      notes_.push_back("ignored " + std::to_string(count) + " elements of MSH type " +
                       std::to_string(type));
    }
    return std::move(mesh_);
  }

 private:
  void read_header() {
    scanner_.expect("$MeshFormat");
    std::string_view version = scanner_.next("the MSH version");
    if (version == "2.2") {
      version_ = 22;
    } else if (version == "4.1") {
      version_ = 41;
    } else {
      scanner_.fail("MSH version " + std::string(version) + " is not supported (2.2 and 4.1 are)");
    }
    binary_ = scanner_.read_int_in("the file type (0 = ASCII, 1 = binary)", 0, 1) == 1;
    long long data_size = scanner_.read_int("the data size");
    if (data_size != 8)
      scanner_.fail("data size " + std::to_string(data_size) + " is not supported (8 is)");
    scanner_.skip_line();
    if (binary_) {
      // A binary int 1 tells the byte order of the writer.
      BinaryReader probe(path_, content_, scanner_.offset(), false);
      std::int32_t one = probe.read<std::int32_t>("the byte-order mark");
      if (one == 1) {
        big_endian_ = false;
      } else if (one == 0x01000000) {
        big_endian_ = true;
      } else {
        probe.fail("bad byte-order mark in binary MSH header");
      }
      resume_text_after(probe.offset());
    }
    scanner_.expect("$EndMeshFormat");
  }

  BinaryReader binary_reader() {
    return BinaryReader(path_, content_, scanner_.offset(), big_endian_);
  }

  void resume_text_after(size_t offset) {
    long newlines =
        static_cast<long>(std::count(content_.begin() + static_cast<long>(scanner_.offset()),
                                     content_.begin() + static_cast<long>(offset), '\n'));
    scanner_.seek(offset, scanner_.line() + newlines);
  }

  void skip_section(const std::string& name) {
    std::string end = "$End" + name;  // binary data may run right up to it
    size_t pos = content_.find(end, scanner_.offset());
    if (pos == std::string_view::npos) scanner_.fail("section $" + name + " has no $End" + name);
    resume_text_after(pos + end.size());
  }

  void add_node(long long tag, const Vec3& x) {
    if (tags_.contains(tag)) scanner_.fail("node tag " + std::to_string(tag) + " is defined twice");
    tags_.add(tag, mesh_.num_vertices());
    mesh_.vertices.push_back(x);
  }

  void add_element(long long tag, int type, const std::vector<long long>& nodes) {
    if (type == kQuadraticTetType) {
      scanner_.fail("element " + std::to_string(tag) +
                    " is a 10-node (quadratic) tetrahedron; only 4-node tetrahedra are supported");
    }
    if (type != kTetType) {
      ++skipped_[type];
      return;
    }
    Tet t;
    for (int k = 0; k < 4; ++k) {
      t[static_cast<size_t>(k)] = tags_.find(nodes[static_cast<size_t>(k)]);
      if (t[static_cast<size_t>(k)] < 0) {
        scanner_.fail("element " + std::to_string(tag) + " references node " +
                      std::to_string(nodes[static_cast<size_t>(k)]) +
                      ", which $Nodes does not define");
      }
    }
    mesh_.tets.push_back(t);
  }

  void read_nodes_22() {
    long long n = scanner_.read_count("the number of nodes");
    scanner_.skip_line();
    if (binary_) {
      BinaryReader in = binary_reader();
      for (long long i = 0; i < n; ++i) {
        long long tag = in.read<std::int32_t>("node tag");
        Vec3 x;
        for (int k = 0; k < 3; ++k) x[k] = in.read<double>("node coordinate");
        add_node(tag, x);
      }
      resume_text_after(in.offset());
      return;
    }
    for (long long i = 0; i < n; ++i) {
      long long tag = scanner_.read_int("a node tag");
      Vec3 x;
      for (int k = 0; k < 3; ++k) x[k] = scanner_.read_double("a node coordinate");
      add_node(tag, x);
    }
  }

  void read_elements_22() {
    long long n = scanner_.read_count("the number of elements");
    scanner_.skip_line();
    std::vector<long long> nodes;
    if (binary_) {
      BinaryReader in = binary_reader();
      for (long long done = 0; done < n;) {
        int type = in.read<std::int32_t>("element type");
        long long count = in.read<std::int32_t>("element count");
        int num_tags = in.read<std::int32_t>("number of element tags");
        int nn = nodes_per_type(type);
        if (nn == 0) in.fail("unknown MSH element type " + std::to_string(type));
        if (count <= 0 || done + count > n || num_tags < 0)
          in.fail("inconsistent element block header");
        for (long long i = 0; i < count; ++i) {
          long long tag = in.read<std::int32_t>("element tag");
          for (int k = 0; k < num_tags; ++k) in.read<std::int32_t>("element tag");
          nodes.resize(static_cast<size_t>(nn));
          for (auto& node : nodes) node = in.read<std::int32_t>("element node");
          add_element(tag, type, nodes);
        }
        done += count;
      }
      resume_text_after(in.offset());
      return;
    }
    for (long long i = 0; i < n; ++i) {
      long long tag = scanner_.read_int("an element tag");
      int type = static_cast<int>(scanner_.read_int("an element type"));
      int nn = nodes_per_type(type);
      if (nn == 0) scanner_.fail("unknown MSH element type " + std::to_string(type));
      long long num_tags = scanner_.read_int_in("the number of element tags", 0, 64);
      for (long long k = 0; k < num_tags; ++k) scanner_.read_int("an element tag");
      nodes.resize(static_cast<size_t>(nn));
      for (auto& node : nodes) node = scanner_.read_int("an element node");
      add_element(tag, type, nodes);
    }
  }

  // MSH 4.1 integers in binary sections are size_t (8 bytes) for counts and tags, int for
  // entity dimensions, tags and types.
  void read_nodes_41() {
    if (binary_) {
      BinaryReader in = binary_reader();
      auto blocks = in.read<std::uint64_t>("number of node blocks");
      in.read<std::uint64_t>("number of nodes");
      in.read<std::uint64_t>("minimum node tag");
      in.read<std::uint64_t>("maximum node tag");
      std::vector<long long> tags;
      for (std::uint64_t b = 0; b < blocks; ++b) {
        int dim = in.read<std::int32_t>("entity dimension");
        in.read<std::int32_t>("entity tag");
        int parametric = in.read<std::int32_t>("parametric flag");
        auto count = in.read<std::uint64_t>("nodes in block");
        if (count > content_.size())
          in.fail("node block size " + std::to_string(count) + " exceeds the file");
        tags.resize(count);
        for (auto& tag : tags) tag = static_cast<long long>(in.read<std::uint64_t>("node tag"));
        int extra = parametric ? dim : 0;
        for (std::uint64_t i = 0; i < count; ++i) {
          Vec3 x;
          for (int k = 0; k < 3; ++k) x[k] = in.read<double>("node coordinate");
          for (int k = 0; k < extra; ++k) in.read<double>("parametric coordinate");
          add_node(tags[i], x);
        }
      }
      resume_text_after(in.offset());
      return;
    }
    long long blocks = scanner_.read_count("the number of node blocks");
    scanner_.read_int("the number of nodes");
    scanner_.read_int("the minimum node tag");
    scanner_.read_int("the maximum node tag");
    std::vector<long long> tags;
    for (long long b = 0; b < blocks; ++b) {
      int dim = static_cast<int>(scanner_.read_int_in("the entity dimension", 0, 3));
      scanner_.read_int("the entity tag");
      int parametric = static_cast<int>(scanner_.read_int_in("the parametric flag", 0, 1));
      long long count = scanner_.read_count("the number of nodes in the block");
      tags.resize(static_cast<size_t>(count));
      for (auto& tag : tags) tag = scanner_.read_int("a node tag");
      int extra = parametric ? dim : 0;
      for (long long i = 0; i < count; ++i) {
        Vec3 x;
        for (int k = 0; k < 3; ++k) x[k] = scanner_.read_double("a node coordinate");
        for (int k = 0; k < extra; ++k) scanner_.read_double("a parametric coordinate");
        add_node(tags[static_cast<size_t>(i)], x);
      }
    }
  }

  void read_elements_41() {
    std::vector<long long> nodes;
    if (binary_) {
      BinaryReader in = binary_reader();
      auto blocks = in.read<std::uint64_t>("number of element blocks");
      in.read<std::uint64_t>("number of elements");
      in.read<std::uint64_t>("minimum element tag");
      in.read<std::uint64_t>("maximum element tag");
      for (std::uint64_t b = 0; b < blocks; ++b) {
        in.read<std::int32_t>("entity dimension");
        in.read<std::int32_t>("entity tag");
        int type = in.read<std::int32_t>("element type");
        auto count = in.read<std::uint64_t>("elements in block");
        int nn = nodes_per_type(type);
        if (nn == 0) in.fail("unknown MSH element type " + std::to_string(type));
        if (count > content_.size())
          in.fail("element block size " + std::to_string(count) + " exceeds the file");
        nodes.resize(static_cast<size_t>(nn));
        for (std::uint64_t i = 0; i < count; ++i) {
          auto tag = static_cast<long long>(in.read<std::uint64_t>("element tag"));
          for (auto& node : nodes)
            node = static_cast<long long>(in.read<std::uint64_t>("element node"));
          add_element(tag, type, nodes);
        }
      }
      resume_text_after(in.offset());
      return;
    }
    long long blocks = scanner_.read_count("the number of element blocks");
    scanner_.read_int("the number of elements");
    scanner_.read_int("the minimum element tag");
    scanner_.read_int("the maximum element tag");
    for (long long b = 0; b < blocks; ++b) {
      scanner_.read_int_in("the entity dimension", 0, 3);
      scanner_.read_int("the entity tag");
      int type = static_cast<int>(scanner_.read_int("the element type"));
      long long count = scanner_.read_count("the number of elements in the block");
      int nn = nodes_per_type(type);
      if (nn == 0) scanner_.fail("unknown MSH element type " + std::to_string(type));
      nodes.resize(static_cast<size_t>(nn));
      for (long long i = 0; i < count; ++i) {
        long long tag = scanner_.read_int("an element tag");
        for (auto& node : nodes) node = scanner_.read_int("an element node");
        add_element(tag, type, nodes);
      }
    }
  }

  std::string path_;
  std::string_view content_;
  TextScanner scanner_;
  std::vector<std::string>& notes_;
  int version_ = 0;
  bool binary_ = false;
  bool big_endian_ = false;
  TetMesh mesh_;
  NodeTagMap tags_;
  std::map<int, long long> skipped_;
};

}  // namespace

TetMesh parse_gmsh(const std::string& path, std::string_view content,
                   std::vector<std::string>& notes) {
  return GmshReader(path, content, notes).read();
}

void write_gmsh(const std::string& path, const TetMesh& mesh, int version, bool binary) {
  if (version != 22 && version != 41) throw MeshError(path, "MSH version must be 22 or 41");
  std::ofstream out = open_for_writing(path, binary);
  const auto nv = static_cast<std::uint64_t>(mesh.vertices.size());
  const auto nt = static_cast<std::uint64_t>(mesh.tets.size());
  out << "$MeshFormat\n" << (version == 41 ? "4.1" : "2.2") << ' ' << (binary ? 1 : 0) << " 8\n";
  if (binary) {
    write_binary<std::int32_t>(out, 1);
    out << '\n';
  }
  out << "$EndMeshFormat\n$Nodes\n";
  if (version == 22) {
    out << nv << '\n';
    for (std::uint64_t i = 0; i < nv; ++i) {
      const Vec3& x = mesh.vertices[i];
      if (binary) {
        write_binary<std::int32_t>(out, static_cast<std::int32_t>(i + 1));
        for (int k = 0; k < 3; ++k) write_binary<double>(out, x[k]);
      } else {
        out << i + 1 << ' ' << x[0] << ' ' << x[1] << ' ' << x[2] << '\n';
      }
    }
    if (binary) out << '\n';
    out << "$EndNodes\n$Elements\n" << nt << '\n';
    if (binary && nt > 0) {
      write_binary<std::int32_t>(out, kTetType);
      write_binary<std::int32_t>(out, static_cast<std::int32_t>(nt));
      write_binary<std::int32_t>(out, 0);
    }
    for (std::uint64_t i = 0; i < nt; ++i) {
      const Tet& t = mesh.tets[i];
      if (binary) {
        write_binary<std::int32_t>(out, static_cast<std::int32_t>(i + 1));
        for (Index v : t) write_binary<std::int32_t>(out, v + 1);
      } else {
        out << i + 1 << ' ' << kTetType << " 0 " << t[0] + 1 << ' ' << t[1] + 1 << ' ' << t[2] + 1
            << ' ' << t[3] + 1 << '\n';
      }
    }
  } else if (binary) {
    for (std::uint64_t v : {std::uint64_t{1}, nv, std::uint64_t{1}, nv}) write_binary(out, v);
    for (std::int32_t v : {3, 1, 0}) write_binary(out, v);
    write_binary(out, nv);
    for (std::uint64_t i = 0; i < nv; ++i) write_binary<std::uint64_t>(out, i + 1);
    for (const Vec3& x : mesh.vertices) {
      for (int k = 0; k < 3; ++k) write_binary<double>(out, x[k]);
    }
    out << "\n$EndNodes\n$Elements\n";
    for (std::uint64_t v : {std::uint64_t{1}, nt, std::uint64_t{1}, nt}) write_binary(out, v);
    for (std::int32_t v : {3, 1, kTetType}) write_binary(out, v);
    write_binary(out, nt);
    for (std::uint64_t i = 0; i < nt; ++i) {
      write_binary<std::uint64_t>(out, i + 1);
      for (Index v : mesh.tets[i])
        write_binary<std::uint64_t>(out, static_cast<std::uint64_t>(v) + 1);
    }
    out << '\n';
  } else {
    out << "1 " << nv << " 1 " << nv << "\n3 1 0 " << nv << '\n';
    for (std::uint64_t i = 0; i < nv; ++i) out << i + 1 << '\n';
    for (const Vec3& x : mesh.vertices) out << x[0] << ' ' << x[1] << ' ' << x[2] << '\n';
    out << "$EndNodes\n$Elements\n1 " << nt << " 1 " << nt << "\n3 1 " << kTetType << ' ' << nt
        << '\n';
    for (std::uint64_t i = 0; i < nt; ++i) {
      const Tet& t = mesh.tets[i];
      out << i + 1 << ' ' << t[0] + 1 << ' ' << t[1] + 1 << ' ' << t[2] + 1 << ' ' << t[3] + 1
          << '\n';
    }
  }
  out << "$EndElements\n";
  finish_writing(out, path);
}

}  // namespace softbody
