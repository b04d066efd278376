#include "engine/scene/loads_section.h"

#include <cmath>
#include <set>

#include "engine/scene/selection.h"

namespace softbody {
namespace {

LoadCurve read_curve(JsonReader& r) {
  LoadCurve curve;
  if (!r.has("curve")) return curve;
  const nlohmann::json& points = r.array("curve");
  for (size_t i = 0; i < points.size(); ++i) {
    const nlohmann::json& point = points[i];
    if (!point.is_array() || point.size() != 2 || !point[0].is_number() || !point[1].is_number())
      r.fail("curve", "point " + std::to_string(i) + " is not [t, s]");
    const double t = point[0].get<double>(), s = point[1].get<double>();
    if (!curve.points.empty() && !(t > curve.points.back().first))
      r.fail("curve", "times must increase (point " + std::to_string(i) + ")");
    if (!std::isfinite(s)) r.fail("curve", "point " + std::to_string(i) + " has no finite scale");
    curve.points.emplace_back(t, s);
  }
  if (curve.points.empty()) r.fail("curve", "needs at least one [t, s] point");
  return curve;
}

}  // namespace

std::vector<SurfaceLoad> read_loads(JsonReader& root, const TetMesh& mesh,
                                    const MeshTopology& topology) {
  std::vector<SurfaceLoad> loads;
  if (!root.has("loads")) return loads;
  const nlohmann::json& array = root.array("loads");
  for (size_t i = 0; i < array.size(); ++i) {
    JsonReader r = element_reader(array[i], root.path_of("loads"), i, root.source(), root.length());
    const std::vector<Index> selected = select_vertices(r, mesh);
    const std::set<Index> in(selected.begin(), selected.end());
    std::vector<Triangle> faces;
    for (const Triangle& f : topology.boundary_faces())
      if (in.count(f[0]) && in.count(f[1]) && in.count(f[2])) faces.push_back(f);
    if (faces.empty()) r.fail("", "the selection holds no boundary triangle to load");
    if (r.has("traction") == r.has("pressure"))
      r.fail("traction", "a load has either a traction (dead) or a pressure (follower)");
    // Pa = N / m^2: a length unit scales it by length^-2, as E.
    const Vec3 traction = r.vec3("traction", Vec3::Zero(), -2);
    const double pressure = r.number("pressure", 0, -2);
    if (!traction.allFinite()) r.fail("traction", "must be finite");
    if (!std::isfinite(pressure)) r.fail("pressure", "must be finite");
    LoadCurve curve = read_curve(r);
    r.finish();
    loads.push_back(
        make_surface_load(std::move(faces), mesh.vertices, traction, pressure, std::move(curve)));
  }
  return loads;
}

std::vector<Probe> read_probes(JsonReader& root, const TetMesh& mesh) {
  std::vector<Probe> probes;
  if (!root.has("probes")) return probes;
  const nlohmann::json& array = root.array("probes");
  std::set<std::string> names;
  for (size_t i = 0; i < array.size(); ++i) {
    JsonReader r =
        element_reader(array[i], root.path_of("probes"), i, root.source(), root.length());
    Probe probe;
    probe.name = r.string("name", "");
    if (probe.name.empty()) r.fail("name", "a probe needs a name");
    if (!names.insert(probe.name).second)
      r.fail("name", "another probe is named '" + probe.name + "'");
    probe.vertices = select_vertices(r, mesh);
    if (probe.vertices.empty()) r.fail("", "the selection holds no vertex");
    r.finish();
    probes.push_back(std::move(probe));
  }
  return probes;
}

}  // namespace softbody
