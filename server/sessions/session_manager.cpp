#include "server/sessions/session_manager.h"

#include "server/auth/access_policy.h"
#include "server/auth/quota.h"

#include <cmath>
#include <filesystem>
#include <fstream>
#include <random>

#include "engine/io/mesh_error.h"
#include "engine/mesh/validation.h"
#include "proto/status_details.h"
#include "server/api/snapshot_convert.h"
#include "server/api_error.h"
#include "server/logging.h"

namespace softbody::server {
namespace fs = std::filesystem;
namespace v1 = softbody::v1;

namespace {

std::string new_session_id() {
  static std::mutex mutex;
  static std::mt19937_64 rng(std::random_device{}());
  std::lock_guard lock(mutex);
  char buffer[17];
  std::snprintf(buffer, sizeof buffer, "%016llx", static_cast<unsigned long long>(rng()));
  return std::string(buffer, 12);
}

// FNV-1a: identifies uploaded content for the body cache.
std::string content_key(const std::string& a, const std::string& b, int format) {
  std::uint64_t h = 1469598103934665603ull;
  auto mix = [&](const std::string& s) {
    for (unsigned char c : s) h = (h ^ c) * 1099511628211ull;
    h = (h ^ s.size()) * 1099511628211ull;
  };
  mix(a);
  mix(b);
  return "upload:" + std::to_string(format) + ":" + std::to_string(h);
}

bool valid_scene_name(const std::string& name) {
  if (name.empty() || name.size() > 64) return false;
  return std::all_of(name.begin(), name.end(), [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '_';
  });
}

// The scene used for an uploaded mesh when the client sends none: the body rests on a floor at
// y = 0 under gravity.
nlohmann::json default_upload_scene() {
  return nlohmann::json::parse(R"({
    "units": "m",
    "mesh": {"lowest_y": 0, "center_xz": true},
    "material": {"model": "stvk-edge", "E": 5e4, "nu": 0.45, "density": 1000, "volumetric": "cubic"},
    "damping": {"alpha": 0.5, "beta": 0.01},
    "dt": 0.02,
    "solver": {"type": "auto", "tolerance": 1e-6},
    "obstacles": [{"type": "halfspace", "normal": [0, 1, 0], "position": [0, 0, 0],
                   "contact": {"stiffness": 2e4, "damping": 50, "friction": 1e4}}]
  })");
}

}  // namespace

SessionManager::SessionManager(ManagerOptions options, Scheduler& scheduler, Metrics& metrics)
    : options_(std::move(options)),
      tool_meshes_(options_.scenes_dir),
      scheduler_(scheduler),
      metrics_(metrics) {
  bodies_ = [this](const std::string& key,
                   const std::function<std::shared_ptr<const SceneBody>()>& build) {
    return cached_body(key, build);
  };
  reaper_ = std::thread([this] {
    std::unique_lock lock(reaper_mutex_);
    while (!reaper_wake_.wait_for(lock, std::chrono::milliseconds(500),
                                  [this] { return reaper_stop_; })) {
      lock.unlock();
      expire_idle();
      lock.lock();
    }
  });
}

SessionManager::~SessionManager() {
  {
    std::lock_guard lock(reaper_mutex_);
    reaper_stop_ = true;
  }
  reaper_wake_.notify_all();
  reaper_.join();
}

std::shared_ptr<const SceneBody> SessionManager::cached_body(
    const std::string& key, const std::function<std::shared_ptr<const SceneBody>()>& build) {
  {
    std::lock_guard lock(cache_mutex_);
    if (auto it = body_cache_.find(key); it != body_cache_.end()) {
      if (auto body = it->second.lock()) return body;
    }
  }
  std::shared_ptr<const SceneBody> body = build();  // outside the lock: may take a while
  std::lock_guard lock(cache_mutex_);
  std::erase_if(body_cache_, [](const auto& entry) { return entry.second.expired(); });
  auto [it, inserted] = body_cache_.try_emplace(key, body);
  if (!inserted) {
    if (auto existing = it->second.lock()) return existing;  // built concurrently: share theirs
    it->second = body;
  }
  return body;
}

int SessionManager::body_cache_size() const {
  std::lock_guard lock(cache_mutex_);
  return static_cast<int>(std::count_if(body_cache_.begin(), body_cache_.end(),
                                        [](const auto& e) { return !e.second.expired(); }));
}

std::vector<SceneListing> SessionManager::list_scenes() const {
  std::vector<SceneListing> out;
  std::error_code ec;
  for (const auto& entry : fs::directory_iterator(options_.scenes_dir, ec)) {
    if (entry.path().extension() != ".json") continue;
    SceneListing s{entry.path().stem().string(), ""};
    std::ifstream in(entry.path());
    const nlohmann::json doc = nlohmann::json::parse(in, nullptr, false);
    if (doc.is_object() && doc.contains("description") && doc["description"].is_string())
      s.description = doc["description"].get<std::string>();
    out.push_back(s);
  }
  std::sort(out.begin(), out.end(),
            [](const SceneListing& a, const SceneListing& b) { return a.name < b.name; });
  return out;
}

void SessionManager::check_admission() {
  if (shutting_down_) throw ApiError(grpc::StatusCode::UNAVAILABLE, "the server is shutting down");
  const Capacity c = capacity_locked();
  if (!c.accepting()) {
    metrics_.requests_refused.fetch_add(1);
    throw ApiError(grpc::StatusCode::RESOURCE_EXHAUSTED, c.refusal);
  }
}

Capacity SessionManager::capacity_locked() const {
  std::vector<SessionLoad> loads;
  loads.reserve(sessions_.size());
  for (const auto& [id, s] : sessions_) {
    const auto published = s->latest();
    // Sessions of one scene on one mesh cost alike: the key of the cost book.
    loads.push_back({s->running.load(), s->cpu_load(),
                     s->scene_name() + "#" + std::to_string(s->mesh().tets.size()),
                     published ? published->real_time_factor : 0.0});
  }
  CapacityLimits limits;
  limits.max_sessions = options_.max_sessions;
  limits.max_cpu_load = options_.max_cpu_load;
  limits.cores = scheduler_.workers();
  const Capacity c = measure_capacity(loads, limits, shutting_down_, cpu_full_, cost_book_);
  cpu_full_ = c.cpu_full;
  return c;
}

Capacity SessionManager::capacity() const {
  std::lock_guard lock(mutex_);
  return capacity_locked();
}

void SessionManager::check_mesh_size(const TetMesh& mesh, const std::string& field) {
  if (mesh.num_vertices() <= options_.max_vertices &&
      static_cast<long>(mesh.tets.size()) <= options_.max_tetrahedra)
    return;
  metrics_.requests_refused.fetch_add(1);
  throw ApiError(grpc::StatusCode::RESOURCE_EXHAUSTED,
                 field + ": the mesh has " + std::to_string(mesh.num_vertices()) +
                     " vertices and " + std::to_string(mesh.tets.size()) +
                     " tetrahedra; this server accepts at most " +
                     std::to_string(options_.max_vertices) + " and " +
                     std::to_string(options_.max_tetrahedra));
}

void SessionManager::check_owner_quota(const Caller& caller, const std::string& owner) {
  if (caller.quota.max_sessions <= 0) return;
  int owned = 0;
  for (const auto& [id, s] : sessions_) owned += s->owner() == owner;
  if (owned >= caller.quota.max_sessions)
    refuse_quota(metrics_, "max_sessions", caller,
                 "owns " + std::to_string(owned) + " sessions, its limit (delete one first)");
}

std::shared_ptr<Session> SessionManager::create(const NewSession& request, const Caller& caller) {
  // The owner is the caller; only an admin (a host restoring a session for its user) names
  // another, or opens a session to others.
  const bool admin = !caller.authenticated || caller.role == Role::kAdmin;
  if (!request.owner.empty() && !admin)
    throw ApiError(grpc::StatusCode::PERMISSION_DENIED,
                   "owner: only an admin may create a session for another user");
  if (request.audience && !admin)
    throw ApiError(grpc::StatusCode::PERMISSION_DENIED,
                   "audience: only an admin may open a session to others");
  const std::string owner = request.owner.empty() ? caller.subject : request.owner;
  {
    std::lock_guard lock(mutex_);
    check_admission();
    check_owner_quota(caller, owner);  // before the scene is built (the expensive part)
  }

  SessionSource source;
  source.base_dir = options_.scenes_dir;
  source.scene_name = request.scene_name;
  source.document = request.document;
  if (request.upload) take_upload(*request.upload, request.upload_field, caller, source);
  switch (request.source) {
    case NewSession::Source::kSceneName:
      source.document = read_shipped_scene(request.scene_name);
      break;
    case NewSession::Source::kSceneJson:
      break;
    case NewSession::Source::kUploadedMesh:
      if (source.document.is_null()) source.document = default_upload_scene();
      source.scene_name = request.upload->file_name;
      break;
    case NewSession::Source::kSnapshot:
      break;
  }
  for (size_t i = 0; i < request.overrides.size(); ++i) {
    try {
      apply_override(source.document, request.overrides[i], "");
    } catch (const SceneError& e) {
      invalid_argument("overrides[" + std::to_string(i) + "]", e.what());
    } catch (const nlohmann::json::exception& e) {
      invalid_argument("overrides[" + std::to_string(i) + "]", e.what());
    }
  }
  check_files_inside_project(source.document, request.source == NewSession::Source::kSnapshot
                                                  ? "snapshot"
                                              : !request.document.is_null() ? "scene_json"
                                                                            : "overrides");

  Scene scene;
  try {
    scene = build_scene(source.document, source.scene_name, source.base_dir,
                        {source.uploaded_mesh.get(), source.uploaded_key, bodies_});
  } catch (const SceneError& e) {
    invalid_argument("scene", e.what());
  } catch (const nlohmann::json::exception& e) {
    invalid_argument("scene", e.what());
  }
  const TetMesh& mesh = scene.body->mesh;
  check_mesh_size(mesh, "scene");

  source.owner = owner;
  source.audience = request.audience.value_or(SessionAudience{});
  std::string id = request.session_id;
  if (!id.empty() && !valid_session_id(id))
    invalid_argument("session_id", "must be 1-64 letters, digits, '-' or '_'");
  if (id.empty()) id = new_session_id();
  auto session = std::make_shared<Session>(id, request.label, std::move(scene), std::move(source),
                                           options_.session, bodies_, metrics_);
  session->idle_timeout_s = request.idle_timeout_s > 0
                                ? std::min(request.idle_timeout_s, options_.max_idle_timeout_s)
                                : options_.idle_timeout_s;
  if (request.restored_state)
    session->restore(request.restored_state(static_cast<size_t>(session->mesh().num_vertices())));
  {
    std::lock_guard lock(mutex_);
    // Again: the server may have filled up, begun shutting down, or taken a concurrent create of
    // the same owner meanwhile.
    check_admission();
    check_owner_quota(caller, owner);
    if (!sessions_.try_emplace(id, session).second)
      throw ApiError(grpc::StatusCode::ALREADY_EXISTS, "session_id: '" + id + "' exists");
    moved_.erase(id);  // a session that comes back is no longer elsewhere
  }
  metrics_.sessions_created.fetch_add(1);
  session->running = !request.start_paused;
  if (session->running) scheduler_.start(session);
  spdlog::info("event=session_created session={} scene={} vertices={} tetrahedra={} paused={}", id,
               logfmt_value(session->scene_name()), mesh.num_vertices(), mesh.tets.size(),
               request.start_paused);
  for (const std::string& warning : session->mesh_warnings())
    spdlog::warn("event=session_warning session={} warning={}", id, logfmt_value(warning));
  return session;
}

void SessionManager::take_upload(const UploadedMeshData& data, const std::string& field,
                                 const Caller& caller, SessionSource& source) {
  try {
    LoadedMesh loaded = load_mesh_content(data.format, data.file_name, data.content, data.elements);
    check_mesh_size(loaded.mesh, field + ".content");
    if (caller.quota.max_upload_vertices > 0 &&
        loaded.mesh.num_vertices() > caller.quota.max_upload_vertices)
      refuse_quota(metrics_, "max_upload_vertices", caller,
                   field + ".content has " + std::to_string(loaded.mesh.num_vertices()) +
                       " vertices; at most " + std::to_string(caller.quota.max_upload_vertices) +
                       " may be uploaded");
    source.uploaded_mesh = std::make_shared<const TetMesh>(std::move(loaded.mesh));
  } catch (const MeshError& e) {
    invalid_argument(field + ".content", e.what());
  }
  source.uploaded_key = content_key(data.content, data.elements, static_cast<int>(data.format));
  source.uploaded = data;
}

nlohmann::json parse_scene_document(const std::string& text, const std::string& field) {
  try {
    nlohmann::json document = nlohmann::json::parse(text);
    if (!document.is_object()) invalid_argument(field, "a scene is a JSON object");
    return document;
  } catch (const nlohmann::json::parse_error& e) {
    invalid_argument(field, std::string("invalid JSON: ") + e.what());
  }
}

nlohmann::json SessionManager::read_shipped_scene(const std::string& name) const {
  if (!valid_scene_name(name))
    invalid_argument("scene_name", "must be 1-64 letters, digits, '-' or '_'");
  const fs::path path = fs::path(options_.scenes_dir) / (name + ".json");
  if (!fs::exists(path)) {
    std::string names;
    for (const SceneListing& s : list_scenes()) names += (names.empty() ? "" : ", ") + s.name;
    throw ApiError(grpc::StatusCode::NOT_FOUND,
                   "scene_name: no scene '" + name + "' (available: " + names + ")");
  }
  std::ifstream in(path);
  const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  return parse_scene_document(text, "scene_name");
}

// A client's document (a scene, a snapshot's scene, any source's overrides) may only name files
// inside the server's project folder: the body's mesh and each mesh obstacle's surface. Checked
// after the overrides (`overrides: ["obstacles.0.file=/etc/passwd"]` on a shipped scene), and by
// path components (a sibling folder whose name starts with the project's is outside it).
void SessionManager::check_files_inside_project(const nlohmann::json& document,
                                                const std::string& field) const {
  const fs::path root = fs::weakly_canonical(fs::path(options_.scenes_dir) / "..");
  const auto check = [&](const nlohmann::json& file, const std::string& pointer) {
    bool inside = file.is_string() && !fs::path(file.get<std::string>()).is_absolute();
    if (inside) {
      const fs::path resolved =
          fs::weakly_canonical(fs::path(options_.scenes_dir) / file.get<std::string>());
      inside = std::mismatch(root.begin(), root.end(), resolved.begin(), resolved.end()).first ==
               root.end();
    }
    if (!inside)
      invalid_argument(field,
                       pointer +
                           ": must be a relative path inside the server's scene and mesh folders "
                           "(upload other meshes: CreateSession.uploaded_mesh, softbody-client "
                           "create --mesh FILE)");
  };
  if (!document.is_object()) return;
  const auto mesh = document.find("mesh");
  if (mesh != document.end() && mesh->is_object() && mesh->contains("file"))
    check((*mesh)["file"], "/mesh/file");
  const auto obstacles = document.find("obstacles");
  if (obstacles == document.end() || !obstacles->is_array()) return;
  for (size_t i = 0; i < obstacles->size(); ++i) {
    const nlohmann::json& o = (*obstacles)[i];
    if (o.is_object() && o.contains("file"))
      check(o["file"], "/obstacles/" + std::to_string(i) + "/file");
  }
}

std::shared_ptr<Session> SessionManager::find_for(const Caller& caller, const std::string& id,
                                                  SessionUse use) {
  auto session = find(id);
  require_session_use(caller, id, session->owner(), session->audience(), use);
  if (use != SessionUse::kWatch && session->moving)
    throw ApiError(
        grpc::StatusCode::UNAVAILABLE,
        "session_id: '" + id + "' is moving to another host: its state is final here; ask again");
  return session;
}

std::shared_ptr<Session> SessionManager::find(const std::string& id) {
  if (id.empty()) invalid_argument("session_id", "is required");
  std::optional<v1::SessionMoved> moved;
  {
    std::lock_guard lock(mutex_);
    auto it = sessions_.find(id);
    if (it != sessions_.end()) {
      it->second->touch();
      return it->second;
    }
    if (auto m = moved_.find(id, MovedSessions::Clock::now())) moved = *m;
  }
  // A session that left for another host may have come back to the shared store since (that host
  // drained): the store is asked before the tombstone answers.
  StoreLookup lookup;
  {
    std::lock_guard lock(lookup_mutex_);
    lookup = store_lookup_;
  }
  if (lookup)
    if (auto adopted = lookup(id)) return adopted;
  if (moved) {
    throw ApiError(v1::status_with_moved(
        grpc::StatusCode::NOT_FOUND,
        "session_id: session '" + id + "' moved to " +
            (moved->grpc_address().empty() ? "another host" : moved->grpc_address()),
        *moved));
  }
  throw ApiError(grpc::StatusCode::NOT_FOUND, "session_id: no session '" + id + "'");
}

void SessionManager::hand_off(const std::string& id, const v1::SessionMoved& moved) {
  std::shared_ptr<Session> session;
  {
    std::lock_guard lock(mutex_);
    auto it = sessions_.find(id);
    if (it == sessions_.end()) return;
    session = it->second;
    sessions_.erase(it);
    moved_.add(id, moved, MovedSessions::Clock::now());
  }
  session->pause_stepping();
  const std::string where = moved.grpc_address().empty() ? "the snapshot store (reconnect to "
                                                           "continue on another host)"
                                                         : moved.grpc_address();
  session->close_streams(v1::status_with_moved(grpc::StatusCode::UNAVAILABLE,
                                               "session " + id + " moved to " + where, moved));
  spdlog::info("event=session_handed_off session={} reason={} to={}", id,
               logfmt_value(moved.reason()), logfmt_value(moved.grpc_address()));
}

std::vector<std::shared_ptr<Session>> SessionManager::refuse_new_sessions() {
  std::lock_guard lock(mutex_);
  shutting_down_ = true;
  std::vector<std::shared_ptr<Session>> held;
  for (const auto& [id, s] : sessions_) held.push_back(s);
  return held;
}

std::shared_ptr<Session> SessionManager::held(const std::string& id) const {
  std::lock_guard lock(mutex_);
  auto it = sessions_.find(id);
  return it == sessions_.end() ? nullptr : it->second;
}

void SessionManager::set_store_lookup(StoreLookup lookup) {
  std::lock_guard lock(lookup_mutex_);
  store_lookup_ = std::move(lookup);
}

std::vector<std::shared_ptr<Session>> SessionManager::list() const {
  std::lock_guard lock(mutex_);
  std::vector<std::shared_ptr<Session>> out;
  for (const auto& [id, s] : sessions_) out.push_back(s);
  return out;
}

void SessionManager::remove(const std::string& id, const grpc::Status& reason) {
  std::shared_ptr<Session> session = find(id);
  {
    std::lock_guard lock(mutex_);
    sessions_.erase(id);
  }
  session->pause_stepping();
  session->close_streams(reason);
  spdlog::info("event=session_deleted session={} reason={}", id,
               logfmt_value(reason.error_message()));
}

void SessionManager::pause(const std::shared_ptr<Session>& s) {
  s->pause_stepping();
}

void SessionManager::resume(const std::shared_ptr<Session>& s) {
  if (s->running.exchange(true)) return;
  scheduler_.start(s);
}

void SessionManager::run_steps(const std::shared_ptr<Session>& s, int steps) {
  if (s->running)
    throw ApiError(grpc::StatusCode::FAILED_PRECONDITION,
                   "action: single steps need a paused session (pause it first)");
  scheduler_.run_steps(s, steps);
}

int SessionManager::expire_idle() {
  std::vector<std::string> idle;
  {
    std::lock_guard lock(mutex_);
    for (const auto& [id, s] : sessions_) {
      if (s->idle_timeout_s > 0 && s->idle_seconds() > s->idle_timeout_s) idle.push_back(id);
    }
  }
  for (const std::string& id : idle) {
    try {
      remove(id, grpc::Status(grpc::StatusCode::CANCELLED, "session expired (idle)"));
      metrics_.sessions_expired.fetch_add(1);
    } catch (const ApiError&) {
      // deleted meanwhile
    }
  }
  return static_cast<int>(idle.size());
}

void SessionManager::shut_down(const grpc::Status& status) {
  std::vector<std::shared_ptr<Session>> sessions;
  {
    std::lock_guard lock(mutex_);
    shutting_down_ = true;
    for (const auto& [id, s] : sessions_) sessions.push_back(s);
  }
  for (const auto& s : sessions) {
    s->running = false;
    s->close_streams(status);
  }
}

bool SessionManager::shutting_down() const {
  std::lock_guard lock(mutex_);
  return shutting_down_;
}

int SessionManager::size() const {
  std::lock_guard lock(mutex_);
  return static_cast<int>(sessions_.size());
}

}  // namespace softbody::server
