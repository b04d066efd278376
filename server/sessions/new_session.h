// What a new session is made from, in the server's own types. The API layer builds it from a
// CreateSessionRequest (api/create_session_convert.h), checking what the message alone can tell
// and naming its field at fault; the manager checks what needs the host (scene folders, mesh
// limits, quotas, admission).
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "server/auth/access_policy.h"
#include "server/sessions/session.h"

namespace softbody::server {

// A scene document from text: INVALID_ARGUMENT naming `field` when it is not JSON or not an
// object. For every source of a new session (a shipped file, a client's JSON, a snapshot's).
nlohmann::json parse_scene_document(const std::string& text, const std::string& field);

struct NewSession {
  enum class Source { kSceneName, kSceneJson, kUploadedMesh, kSnapshot };
  Source source = Source::kSceneName;
  std::string scene_name;   // kSceneName: a shipped scene; kSnapshot: the snapshot's scene name
  nlohmann::json document;  // kSceneJson, kSnapshot: the scene document (a JSON object)
  // kUploadedMesh, and a snapshot's uploaded mesh; `upload_field` names it in errors
  // ("uploaded_mesh", "snapshot.uploaded_mesh").
  std::optional<UploadedMeshData> upload;
  std::string upload_field;
  // kSnapshot: the state to restore into a body of `num_vertices` vertices; throws ApiError
  // naming the snapshot's field that does not fit.
  std::function<SessionSnapshot(size_t num_vertices)> restored_state;
  std::vector<std::string> overrides;  // "json.path=value" (not with a snapshot)
  std::string label;
  std::string session_id;  // empty: the server picks one
  std::string owner;       // empty: the caller; otherwise an admin creates it for this user
  std::optional<SessionAudience> audience;  // set: an admin opens the session to others
  bool start_paused = false;
  double idle_timeout_s = 0;  // 0: the server's default
};

}  // namespace softbody::server
