// Small helpers shared by the mesh readers and writers.
#pragma once

#include <algorithm>
#include <bit>
#include <fstream>
#include <string>
#include <unordered_map>

#include "engine/io/mesh_error.h"
#include "engine/types.h"

namespace softbody {

std::ofstream open_for_writing(const std::string& path, bool binary = false);
// Flushes and turns a failed stream (disk full, ...) into a MeshError.
void finish_writing(std::ofstream& out, const std::string& path);

// Writes raw bytes of a value in the requested byte order.
template <typename T>
void write_binary(std::ostream& out, T value, bool big_endian = false) {
  auto* bytes = reinterpret_cast<unsigned char*>(&value);
  if (big_endian != (std::endian::native == std::endian::big))
    std::reverse(bytes, bytes + sizeof(T));
  out.write(reinterpret_cast<const char*>(bytes), sizeof(T));
}

// Maps the node tags a file uses (arbitrary, possibly sparse integers) to 0-based indices.
class NodeTagMap {
 public:
  void add(long long tag, Index index) { map_[tag] = index; }
  bool contains(long long tag) const { return map_.count(tag) != 0; }
  // Index of `tag`, or -1 when the file never defined it.
  Index find(long long tag) const {
    auto it = map_.find(tag);
    return it == map_.end() ? -1 : it->second;
  }

 private:
  std::unordered_map<long long, Index> map_;
};

// Surface triangles of a mesh (outward), computed from its topology; for OBJ/STL writers.
std::vector<Triangle> boundary_triangles(const std::vector<Tet>& tets, Index num_vertices);

}  // namespace softbody
