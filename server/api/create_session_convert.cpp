#include "server/api/create_session_convert.h"

#include <cmath>
#include <memory>

#include "server/api/snapshot_convert.h"
#include "server/api_error.h"

namespace softbody::server {
namespace {

MeshFormat mesh_format(v1::MeshFormat f, const std::string& field) {
  switch (f) {
    case v1::MESH_FORMAT_GMSH:
      return MeshFormat::kGmsh;
    case v1::MESH_FORMAT_MEDIT:
      return MeshFormat::kMedit;
    case v1::MESH_FORMAT_TETGEN:
      return MeshFormat::kTetGen;
    case v1::MESH_FORMAT_VTK_LEGACY:
      return MeshFormat::kVtkLegacy;
    case v1::MESH_FORMAT_VTU:
      return MeshFormat::kVtu;
    default:
      invalid_argument(field + ".format", "must be one of GMSH, MEDIT, TETGEN, VTK_LEGACY, VTU");
  }
}

void take_upload(const v1::UploadedMesh& u, const std::string& field, NewSession& out) {
  UploadedMeshData data{mesh_format(u.format(), field), u.content(), u.tetgen_elements(),
                        u.file_name().empty() ? "upload" : u.file_name(), u.scene_json()};
  if (data.content.empty()) invalid_argument(field + ".content", "is empty");
  if (!data.scene_json.empty())
    out.document = parse_scene_document(data.scene_json, field + ".scene_json");
  out.upload = std::move(data);
  out.upload_field = field;
}

}  // namespace

NewSession new_session_from_proto(const v1::CreateSessionRequest& request) {
  NewSession out;
  if (request.label().size() > 256) invalid_argument("label", "longer than 256 characters");
  if (!std::isfinite(request.idle_timeout_s()) || request.idle_timeout_s() < 0)
    invalid_argument("idle_timeout_s", "must be a finite number >= 0");
  out.label = request.label();
  out.idle_timeout_s = request.idle_timeout_s();
  out.start_paused = request.start_paused();
  out.session_id = request.session_id();
  out.owner = request.owner();
  if (!request.audience().empty()) {
    try {
      out.audience = parse_audience(request.audience());
    } catch (const std::invalid_argument& e) {
      invalid_argument("audience", e.what());
    }
  }
  out.overrides.assign(request.overrides().begin(), request.overrides().end());
  switch (request.source_case()) {
    case v1::CreateSessionRequest::kSceneName:
      out.source = NewSession::Source::kSceneName;
      out.scene_name = request.scene_name();
      break;
    case v1::CreateSessionRequest::kSceneJson:
      out.source = NewSession::Source::kSceneJson;
      out.document = parse_scene_document(request.scene_json(), "scene_json");
      out.scene_name = out.document.value("name", std::string("custom"));
      break;
    case v1::CreateSessionRequest::kUploadedMesh:
      out.source = NewSession::Source::kUploadedMesh;
      take_upload(request.uploaded_mesh(), "uploaded_mesh", out);
      break;
    case v1::CreateSessionRequest::kSnapshot: {
      out.source = NewSession::Source::kSnapshot;
      const v1::Snapshot& snapshot = request.snapshot();
      if (snapshot.format_version() != 1) invalid_argument("snapshot.format_version", "must be 1");
      if (snapshot.has_uploaded_mesh())
        take_upload(snapshot.uploaded_mesh(), "snapshot.uploaded_mesh", out);
      out.document = parse_scene_document(snapshot.scene_json(), "snapshot.scene_json");
      out.scene_name = snapshot.scene_name();
      if (!request.overrides().empty())
        invalid_argument("overrides", "cannot be combined with a snapshot");
      // The state is read once the body exists (its size is checked against the mesh's).
      auto kept = std::make_shared<const v1::Snapshot>(snapshot);
      out.restored_state = [kept](size_t num_vertices) {
        return snapshot_state_from_proto(*kept, num_vertices);
      };
      break;
    }
    default:
      invalid_argument("source",
                       "one of scene_name, scene_json, uploaded_mesh or snapshot is required");
  }
  return out;
}

}  // namespace softbody::server
