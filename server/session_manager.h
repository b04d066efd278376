// Creates, finds, lists and deletes sessions; enforces the server's limits; shares scene bodies
// between sessions with the same mesh and material; expires idle sessions.
#pragma once

#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "server/scheduler.h"
#include "server/session.h"
#include "softbody/v1/session.pb.h"

namespace softbody::server {

struct ManagerOptions {
  std::string scenes_dir = "scenes";
  int max_sessions = 64;
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
  // All creation paths; throws ApiError naming the request field at fault.
  std::shared_ptr<Session> create(const softbody::v1::CreateSessionRequest& request);
  std::shared_ptr<Session> find(const std::string& id);  // NOT_FOUND
  std::vector<std::shared_ptr<Session>> list() const;
  void remove(const std::string& id, const grpc::Status& reason);

  void pause(const std::shared_ptr<Session>& s);
  void resume(const std::shared_ptr<Session>& s);
  void run_steps(const std::shared_ptr<Session>& s, int steps);  // FAILED_PRECONDITION if running

  // Deletes sessions idle past their timeout; returns how many.
  int expire_idle();
  // Refuses new work and closes every stream with `status`.
  void shut_down(const grpc::Status& status);
  bool shutting_down() const;
  int size() const;
  int body_cache_size() const;

 private:
  // Throws UNAVAILABLE while shutting down, RESOURCE_EXHAUSTED at --max-sessions; call with
  // mutex_ held.
  void check_admission();
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
  bool shutting_down_ = false;

  mutable std::mutex cache_mutex_;
  std::map<std::string, std::weak_ptr<const SceneBody>> body_cache_;

  std::thread reaper_;
  std::mutex reaper_mutex_;
  std::condition_variable reaper_wake_;
  bool reaper_stop_ = false;
};

}  // namespace softbody::server
