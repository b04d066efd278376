#include "server/sessions/tool_meshes.h"

#include <spdlog/spdlog.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "engine/io/mesh_error.h"
#include "engine/io/surface_reader.h"

namespace softbody::server {
namespace {

double metres_per_unit(const std::string& units) {
  if (units == "m") return 1;
  if (units == "cm") return 1e-2;
  if (units == "mm") return 1e-3;
  throw std::invalid_argument("units: must be m, cm or mm, not '" + units + "'");
}

}  // namespace

ToolMeshes::ToolMeshes(const std::string& scenes_dir) {
  const std::filesystem::path dir = std::filesystem::path(scenes_dir) / ".." / "meshes" / "tools";
  const std::filesystem::path manifest = dir / "tools.json";
  if (!std::filesystem::exists(manifest)) return;
  nlohmann::json document;
  try {
    std::ifstream in(manifest);
    document = nlohmann::json::parse(in);
  } catch (const nlohmann::json::exception& e) {
    spdlog::warn("event=tool_meshes_unreadable file={} problem=\"{}\"", manifest.string(),
                 e.what());
    return;
  }
  const nlohmann::json& tools = document.value("tools", nlohmann::json::array());
  for (size_t i = 0; i < tools.size(); ++i) {
    const nlohmann::json& t = tools[i];
    try {
      Entry entry;
      entry.name = t.at("name").get<std::string>();
      entry.description = t.value("description", std::string());
      SurfaceMesh mesh = read_surface_mesh((dir / t.at("file").get<std::string>()).string());
      const double scale = metres_per_unit(t.value("units", std::string("m")));
      for (Vec3& x : mesh.vertices) x *= scale;
      entry.surface = std::make_shared<const RigidSurface>(std::move(mesh));
      entries_.push_back(std::move(entry));
    } catch (const std::exception& e) {  // MeshError, invalid_argument, json's
      spdlog::warn("event=tool_mesh_left_out file={} entry={} problem=\"{}\"", manifest.string(), i,
                   e.what());
    }
  }
}

std::shared_ptr<const RigidSurface> ToolMeshes::find(const std::string& name) const {
  for (const Entry& e : entries_)
    if (e.name == name) return e.surface;
  return nullptr;
}

std::string ToolMeshes::names() const {
  std::string out;
  for (const Entry& e : entries_) out += (out.empty() ? "" : ", ") + e.name;
  return out.empty() ? "none" : out;
}

}  // namespace softbody::server
