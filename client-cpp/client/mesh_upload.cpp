#include "client-cpp/client/mesh_upload.h"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

namespace softbody::client {

namespace v1 = softbody::v1;
namespace fs = std::filesystem;

namespace {

Error invalid(const std::string& what) {
  return Error{grpc::StatusCode::INVALID_ARGUMENT, what};
}

bool read_file(const fs::path& path, std::string& out) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return false;
  std::ostringstream text;
  text << in.rdbuf();
  out = text.str();
  return static_cast<bool>(in) || in.eof();
}

// "PATH: cannot be read (no such file)", with why when the system says.
Error unreadable(const fs::path& path, const std::string& note = "") {
  std::error_code ec;
  const std::string why = !fs::exists(path, ec)        ? "no such file"
                          : fs::is_directory(path, ec) ? "a folder"
                                                       : "permission denied or I/O error";
  return invalid(path.string() + ": cannot be read (" + why + note + ")");
}

}  // namespace

Result<v1::UploadedMesh> read_mesh_upload(const std::string& mesh_path,
                                          const std::string& scene_path) {
  v1::UploadedMesh upload;
  // The extensions the server's loaders take (engine/io/mesh_io.cpp format_from_extension: the
  // client does not link the engine).
  std::string ext = fs::path(mesh_path).extension().string();
  std::transform(ext.begin(), ext.end(), ext.begin(),
                 [](unsigned char c) { return std::tolower(c); });
  fs::path content_path = mesh_path;
  if (ext == ".msh") {
    upload.set_format(v1::MESH_FORMAT_GMSH);
  } else if (ext == ".mesh") {
    upload.set_format(v1::MESH_FORMAT_MEDIT);
  } else if (ext == ".node" || ext == ".ele") {
    upload.set_format(v1::MESH_FORMAT_TETGEN);
    content_path.replace_extension(".node");
    fs::path elements = content_path;
    elements.replace_extension(".ele");
    // The .node first: a mistyped name is reported as the file the user named.
    if (!read_file(content_path, *upload.mutable_content()))
      return unreadable(content_path, "; TetGen needs the .node and .ele files");
    if (!read_file(elements, *upload.mutable_tetgen_elements()))
      return unreadable(elements, "; TetGen needs the .node and .ele files");
  } else if (ext == ".vtk") {
    upload.set_format(v1::MESH_FORMAT_VTK_LEGACY);
  } else if (ext == ".vtu") {
    upload.set_format(v1::MESH_FORMAT_VTU);
  } else {
    return invalid(mesh_path + ": unknown mesh file extension '" + ext +
                   "' (supported: .msh .mesh .node/.ele .vtk .vtu)");
  }
  if (upload.format() != v1::MESH_FORMAT_TETGEN &&
      !read_file(content_path, *upload.mutable_content()))
    return unreadable(content_path);
  upload.set_file_name(content_path.filename().string());

  if (!scene_path.empty()) {
    std::string text;
    if (!read_file(scene_path, text)) return unreadable(scene_path);
    nlohmann::json scene = nlohmann::json::parse(text, nullptr, /*allow_exceptions=*/false);
    if (!scene.is_object()) return invalid(scene_path + ": not a JSON object (a scene document)");
    // The upload replaces the mesh the scene names; its transforms stay.
    if (scene.contains("mesh") && scene["mesh"].is_object()) {
      scene["mesh"].erase("file");
      scene["mesh"].erase("box");
    }
    upload.set_scene_json(scene.dump());
  }
  return upload;
}

}  // namespace softbody::client
