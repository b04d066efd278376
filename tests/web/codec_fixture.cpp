// softbody-codec-fixture: writes state frames of a mesh's surface encoded by the C++ codec, with
// the exact positions they encode, for the browser codec's tests and benchmark (client-web/test,
// client-web/bench): the WebAssembly build must decode what the server encodes.
//
//   softbody-codec-fixture MESH OUT_DIR [--frames N] [--error-bound E]
//
// OUT_DIR receives: meta.json (vertex and triangle counts, error bound, rest diagonal, frame
// sizes), frames.bin (the encoded frames back to back), truth.f64 (3 doubles per vertex per
// frame) and triangles.u32 (3 surface indices per triangle). Motion: a travelling wave and a twist
// of a few percent of the body's size, so deltas are realistic.
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>

#include "codec/frame_codec.h"
#include "engine/io/mesh_io.h"
#include "engine/mesh/topology.h"

namespace {

template <typename T>
void write_raw(const std::filesystem::path& path, const std::vector<T>& values) {
  std::ofstream out(path, std::ios::binary);
  out.write(reinterpret_cast<const char*>(values.data()),
            static_cast<std::streamsize>(values.size() * sizeof(T)));
}

}  // namespace

int main(int argc, char** argv) {
  using namespace softbody;
  if (argc < 3) {
    std::fprintf(stderr,
                 "usage: softbody-codec-fixture MESH OUT_DIR [--frames N] [--error-bound E]\n");
    return 2;
  }
  int frame_count = 30;
  double error_bound = 1e-4;
  for (int i = 3; i + 1 < argc; i += 2) {
    const std::string flag = argv[i];
    if (flag == "--frames")
      frame_count = std::stoi(argv[i + 1]);
    else if (flag == "--error-bound")
      error_bound = std::stod(argv[i + 1]);
    else {
      std::fprintf(stderr, "unknown option %s\n", flag.c_str());
      return 2;
    }
  }
  try {
    const TetMesh mesh = parse_mesh_file(argv[1]).mesh;
    const MeshTopology topology(mesh);
    const std::vector<Index>& ids = topology.boundary_vertices();
    std::vector<std::int32_t> local(static_cast<size_t>(topology.num_vertices()), -1);
    for (size_t i = 0; i < ids.size(); ++i)
      local[static_cast<size_t>(ids[i])] = static_cast<std::int32_t>(i);
    std::vector<std::uint32_t> triangles;
    for (const Triangle& t : topology.boundary_faces())
      for (Index v : t)
        triangles.push_back(static_cast<std::uint32_t>(local[static_cast<size_t>(v)]));

    Vec3Array rest;
    for (Index v : ids) rest.push_back(mesh.vertices[static_cast<size_t>(v)]);
    const BoundingBox box = bounding_box(rest);
    const double diagonal = (box.max - box.min).norm();
    const codec::Grid grid = codec::grid_for_box(box.min.data(), box.max.data(), error_bound);
    codec::FrameEncoder encoder(grid, 120, false);

    std::filesystem::create_directories(argv[2]);
    std::ofstream frames(std::filesystem::path(argv[2]) / "frames.bin", std::ios::binary);
    std::vector<double> truth, xyz(3 * rest.size());
    std::vector<std::uint8_t> bytes;
    nlohmann::json sizes = nlohmann::json::array();
    const double amplitude = 0.03 * diagonal;
    for (int f = 0; f < frame_count; ++f) {
      const double phase = 0.2 * f;
      for (size_t i = 0; i < rest.size(); ++i) {
        const Vec3 p = rest[i] - 0.5 * (box.min + box.max);
        const double twist = 0.02 * std::sin(phase) * p.y() / diagonal;
        xyz[3 * i] =
            rest[i].x() + twist * -p.z() + amplitude * std::sin(phase + 10 * p.y() / diagonal);
        xyz[3 * i + 1] = rest[i].y() + 0.5 * amplitude * std::sin(phase + 7 * p.x() / diagonal);
        xyz[3 * i + 2] = rest[i].z() + twist * p.x();
      }
      encoder.encode(xyz, f == 0, bytes);
      frames.write(reinterpret_cast<const char*>(bytes.data()),
                   static_cast<std::streamsize>(bytes.size()));
      sizes.push_back(bytes.size());
      truth.insert(truth.end(), xyz.begin(), xyz.end());
    }
    write_raw(std::filesystem::path(argv[2]) / "truth.f64", truth);
    write_raw(std::filesystem::path(argv[2]) / "triangles.u32", triangles);
    const nlohmann::json meta = {{"mesh", argv[1]},
                                 {"vertices", rest.size()},
                                 {"triangles", triangles.size() / 3},
                                 {"error_bound", error_bound},
                                 {"diagonal", diagonal},
                                 {"frame_bytes", sizes}};
    std::ofstream(std::filesystem::path(argv[2]) / "meta.json") << meta.dump(2) << "\n";
    std::printf("%zu surface vertices, %zu triangles, %d frames -> %s\n", rest.size(),
                triangles.size() / 3, frame_count, argv[2]);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "softbody-codec-fixture: %s\n", e.what());
    return 1;
  }
  return 0;
}
