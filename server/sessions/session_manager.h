// Creates, finds, lists and deletes sessions; enforces the server's limits; shares scene bodies
// between sessions with the same mesh and material; expires idle sessions.
#pragma once

#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "server/auth/caller.h"
#include "server/cluster/capacity.h"
#include "server/cluster/moved_sessions.h"
#include "server/sessions/new_session.h"
#include "server/sessions/scheduler.h"
#include "server/sessions/session.h"
#include "server/sessions/tool_meshes.h"
#include "softbody/v1/cluster.pb.h"
#include "softbody/v1/session.pb.h"

namespace softbody::server {

struct ManagerOptions {
  std::string scenes_dir = "scenes";
  int max_sessions = 64;
  double max_cpu_load = 0.9;   // share of the worker cores sessions may take (admission)
  long max_vertices = 200000;  // per session mesh
  long max_tetrahedra = 1000000;
  double idle_timeout_s = 600;  // default for sessions that ask for none
  double max_idle_timeout_s = 86400;
  SessionLimits session;
};

struct SceneListing {
  std::string name, description;
};

class SessionManager {
 public:
  SessionManager(ManagerOptions options, Scheduler& scheduler, Metrics& metrics);
  ~SessionManager();

  std::vector<SceneListing> list_scenes() const;
  // All creation paths; throws ApiError naming the request field at fault. The session's owner
  // is `caller` (or request.owner when the caller is an admin); the caller's quotas apply
  // (RESOURCE_EXHAUSTED naming the quota). Internal callers (preload, restore) are anonymous.
  std::shared_ptr<Session> create(const NewSession& request,
                                  const Caller& caller = Caller::anonymous());
  // Session `id` if `caller` may use it so (the access policy): NOT_FOUND as find, or
  // PERMISSION_DENIED for another user's session its audience does not open to the caller.
  std::shared_ptr<Session> find_for(const Caller& caller, const std::string& id, SessionUse use);
  // NOT_FOUND. An id this host does not hold is asked of the store lookup, which may restore it
  // (a session drained by another host); one this host migrated away is NOT_FOUND with a
  // SessionMoved detail naming where it went.
  std::shared_ptr<Session> find(const std::string& id);
  // The session `id` if this host holds it (no lookup, no error); null otherwise.
  std::shared_ptr<Session> held(const std::string& id) const;
  // Asked by find() for a session this host does not hold (cluster/session_store.h); returns
  // null when it has none. Empty: none is asked.
  using StoreLookup = std::function<std::shared_ptr<Session>(const std::string& id)>;
  void set_store_lookup(StoreLookup lookup);
  std::vector<std::shared_ptr<Session>> list() const;
  void remove(const std::string& id, const grpc::Status& reason);

  void pause(const std::shared_ptr<Session>& s);
  void resume(const std::shared_ptr<Session>& s);
  void run_steps(const std::shared_ptr<Session>& s, int steps);  // FAILED_PRECONDITION if running

  // --- hosts and capacity ---
  Capacity capacity() const;
  // Removes a session that now lives elsewhere: its streams end with UNAVAILABLE and the
  // SessionMoved detail, and later requests naming it get NOT_FOUND with the same detail.
  void hand_off(const std::string& id, const v1::SessionMoved& moved);
  // On SIGTERM: refuses new sessions from now on; returns the sessions held (to drain).
  std::vector<std::shared_ptr<Session>> refuse_new_sessions();

  // Deletes sessions idle past their timeout; returns how many.
  int expire_idle();
  // Refuses new work and closes every stream with `status`.
  void shut_down(const grpc::Status& status);
  bool shutting_down() const;
  int size() const;
  int body_cache_size() const;
  // The tool surfaces ToolCommand's MESH shape may name (meshes/tools/tools.json).
  const ToolMeshes& tool_meshes() const { return tool_meshes_; }

 private:
  // Throws UNAVAILABLE while shutting down, RESOURCE_EXHAUSTED at --max-sessions or
  // --max-cpu-load; call with mutex_ held.
  void check_admission();
  // RESOURCE_EXHAUSTED (quota max_sessions) when `owner` holds the caller's quota of sessions.
  // Call with mutex_ held.
  void check_owner_quota(const Caller& caller, const std::string& owner);
  Capacity capacity_locked() const;  // updates the hysteresis and the cost book
  // Throws RESOURCE_EXHAUSTED naming `field` when the mesh exceeds --max-vertices/tetrahedra.
  void check_mesh_size(const TetMesh& mesh, const std::string& field);
  // Parses and checks an uploaded mesh against the limits and the caller's quota.
  void take_upload(const UploadedMeshData& data, const std::string& field, const Caller& caller,
                   SessionSource& source);
  nlohmann::json read_shipped_scene(const std::string& name) const;
  // Throws INVALID_ARGUMENT naming `field` and the JSON pointer of a file outside the project.
  void check_files_inside_project(const nlohmann::json& document, const std::string& field) const;
  std::shared_ptr<const SceneBody> cached_body(
      const std::string& key, const std::function<std::shared_ptr<const SceneBody>()>& build);

  ManagerOptions options_;
  ToolMeshes tool_meshes_;
  Scheduler& scheduler_;
  Metrics& metrics_;
  BodyProvider bodies_;

  mutable std::mutex mutex_;
  std::map<std::string, std::shared_ptr<Session>> sessions_;
  MovedSessions moved_;  // sessions handed to other hosts
  bool shutting_down_ = false;
  // Admission's memory (capacity_locked, under mutex_): refusing for CPU until the load drops
  // below the hysteresis, and what each scene costs on this host.
  mutable bool cpu_full_ = false;
  mutable SceneCostBook cost_book_;
  mutable std::mutex lookup_mutex_;
  StoreLookup store_lookup_;

  mutable std::mutex cache_mutex_;
  std::map<std::string, std::weak_ptr<const SceneBody>> body_cache_;

  std::thread reaper_;
  std::mutex reaper_mutex_;
  std::condition_variable reaper_wake_;
  bool reaper_stop_ = false;
};

}  // namespace softbody::server
