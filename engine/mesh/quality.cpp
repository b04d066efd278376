#include "engine/mesh/quality.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <sstream>

namespace softbody {

double tet_quality(const Vec3Array& x, const Tet& t) {
  double sum_sq = 0;
  for (int i = 0; i < 4; ++i) {
    for (int j = i + 1; j < 4; ++j) {
      sum_sq += (x[static_cast<size_t>(t[static_cast<size_t>(i)])] -
                 x[static_cast<size_t>(t[static_cast<size_t>(j)])])
                    .squaredNorm();
    }
  }
  double l_rms = std::sqrt(sum_sq / 6.0);
  return l_rms > 0 ? std::sqrt(2.0) * six_signed_volume(x, t) / (l_rms * l_rms * l_rms) : 0.0;
}

MeshStats mesh_stats(const TetMesh& mesh) {
  MeshStats s;
  if (mesh.vertices.empty()) return s;
  const BoundingBox box = bounding_box(mesh.vertices);
  s.bbox_min = box.min;
  s.bbox_max = box.max;
  s.min_quality = mesh.tets.empty() ? 0 : std::numeric_limits<double>::infinity();
  for (const Tet& t : mesh.tets) {
    s.rest_volume += six_signed_volume(mesh.vertices, t) / 6.0;
    double q = tet_quality(mesh.vertices, t);
    s.min_quality = std::min(s.min_quality, q);
    if (q < kSliverQuality) ++s.slivers;
    s.mean_quality += q;
  }
  if (!mesh.tets.empty()) s.mean_quality /= static_cast<double>(mesh.tets.size());
  return s;
}

std::vector<std::string> mesh_warnings(const MeshStats& stats, size_t num_tets,
                                       const std::string& name) {
  std::vector<std::string> warnings;
  if (stats.slivers > 0) {
    std::ostringstream w;
    w.precision(2);
    w << name << ": " << stats.slivers << " of " << num_tets
      << " tetrahedra are slivers (quality 6 sqrt(2) V / l_rms^3 below " << kSliverQuality
      << ", the lowest " << stats.min_quality
      << "): they turn inside out under displacements far below their edges, so the Newton "
         "integrators (implicit-euler, bdf2, bdf3) may need many iterations a step or fall back "
         "to the linearized step; remesh it with a quality bound (e.g. TetGen -q) for "
         "interactive rates";
    warnings.push_back(w.str());
  }
  return warnings;
}

}  // namespace softbody
