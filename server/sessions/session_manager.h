// Creates, finds, lists and deletes sessions; enforces the server's limits; shares scene bodies
// between sessions with the same mesh and material; expires idle sessions.
#pragma once

#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "server/auth/caller.h"
#include "server/cluster/capacity.h"
#include "server/cluster/moved_sessions.h"
#include "server/cluster/snapshot_store.h"
#include "server/sessions/scheduler.h"
#include "server/sessions/session.h"
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
  std::string snapshot_store;      // folder for drained sessions; empty: none
  std::string host = "localhost";  // this host's name (store claims, logs)
};

struct SceneListing {
  std::string name, description;
};

// The CreateSession request that restores a stored session on any host: its snapshot under its
// own id, label and timeout, running if it was.
v1::CreateSessionRequest restore_request(const v1::StoredSession& stored);

class SessionManager {
 public:
  SessionManager(ManagerOptions options, Scheduler& scheduler, Metrics& metrics);
  ~SessionManager();

  std::vector<SceneListing> list_scenes() const;
  // All creation paths; throws ApiError naming the request field at fault. The session's owner
  // is `caller` (or request.owner when the caller is an admin); the caller's quotas apply
  // (RESOURCE_EXHAUSTED naming the quota). Internal callers (preload, restore) are anonymous.
  std::shared_ptr<Session> create(const softbody::v1::CreateSessionRequest& request,
                                  const Caller& caller = Caller::anonymous());
  // Session `id` if `caller` may use it so (the access policy): NOT_FOUND as find, or
  // PERMISSION_DENIED for another user's session its audience does not open to the caller.
  std::shared_ptr<Session> find_for(const Caller& caller, const std::string& id, SessionUse use);
  // NOT_FOUND. An id this host does not hold is looked up in the snapshot store and restored from
  // there (a session drained by another host); one this host migrated away is NOT_FOUND with a
  // SessionMoved detail naming where it went.
  std::shared_ptr<Session> find(const std::string& id);
  std::vector<std::shared_ptr<Session>> list() const;
  void remove(const std::string& id, const grpc::Status& reason);

  void pause(const std::shared_ptr<Session>& s);
  void resume(const std::shared_ptr<Session>& s);
  void run_steps(const std::shared_ptr<Session>& s, int steps);  // FAILED_PRECONDITION if running

  // --- hosts and capacity ---
  Capacity capacity() const;
  const SnapshotStore* store() const { return store_.get(); }
  // Restores a stored session under its own id (paused or running as it was saved).
  std::shared_ptr<Session> adopt(const v1::StoredSession& stored);
  // Restores every session in the store (at start with --adopt-stored); returns how many.
  int adopt_all_stored();
  // Session `s` (paused, so its state is final) as stored: snapshot, id, label, timeout, and
  // `was_running`, whether it ran before it was paused (the restored session does again).
  v1::StoredSession stored_form(Session& s, bool was_running) const;
  // Removes a session that now lives elsewhere: its streams end with UNAVAILABLE and the
  // SessionMoved detail, and later requests naming it get NOT_FOUND with the same detail.
  void hand_off(const std::string& id, const v1::SessionMoved& moved);
  // On SIGTERM: refuses new sessions, pauses every session, saves it to the store and ends its
  // streams with UNAVAILABLE and a "drained" SessionMoved detail. Returns how many were saved;
  // without a store it only refuses new work (shut_down does the rest).
  int drain_to_store();

  // Deletes sessions idle past their timeout; returns how many.
  int expire_idle();
  // Refuses new work and closes every stream with `status`.
  void shut_down(const grpc::Status& status);
  bool shutting_down() const;
  int size() const;
  int body_cache_size() const;

 private:
  // Throws UNAVAILABLE while shutting down, RESOURCE_EXHAUSTED at --max-sessions or
  // --max-cpu-load; call with mutex_ held.
  void check_admission();
  // RESOURCE_EXHAUSTED (quota max_sessions) when `owner` holds the caller's quota of sessions.
  // Call with mutex_ held.
  void check_owner_quota(const Caller& caller, const std::string& owner);
  Capacity capacity_locked() const;  // updates the hysteresis and the cost book
  std::shared_ptr<Session> adopt_from_store(const std::string& id);
  // Throws RESOURCE_EXHAUSTED naming `field` when the mesh exceeds --max-vertices/tetrahedra.
  void check_mesh_size(const TetMesh& mesh, const std::string& field);
  std::shared_ptr<const SceneBody> cached_body(
      const std::string& key, const std::function<std::shared_ptr<const SceneBody>()>& build);

  ManagerOptions options_;
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
  std::unique_ptr<SnapshotStore> store_;
  std::mutex adopt_mutex_;  // one store restore at a time (two requests for one drained session)

  mutable std::mutex cache_mutex_;
  std::map<std::string, std::weak_ptr<const SceneBody>> body_cache_;

  std::thread reaper_;
  std::mutex reaper_mutex_;
  std::condition_variable reaper_wake_;
  bool reaper_stop_ = false;
};

}  // namespace softbody::server
