#include "server/cluster/session_store.h"

#include <chrono>

#include "server/api/create_session_convert.h"
#include "server/api/snapshot_convert.h"
#include "server/api_error.h"
#include "server/logging.h"

namespace softbody::server {

v1::StoredSession stored_form(Session& s, bool was_running, const std::string& host) {
  v1::StoredSession stored;
  stored.set_session_id(s.id());
  stored.set_label(s.label());
  stored.set_owner(s.owner());
  stored.set_audience(audience_text(s.audience()));
  stored.set_idle_timeout_s(s.idle_timeout_s);
  stored.set_running(was_running);
  to_proto(s.snapshot(), *stored.mutable_snapshot());
  stored.set_saved_by(host);
  stored.set_saved_at_unix_ms(std::chrono::duration_cast<std::chrono::milliseconds>(
                                  std::chrono::system_clock::now().time_since_epoch())
                                  .count());
  return stored;
}

v1::CreateSessionRequest restore_request(const v1::StoredSession& stored) {
  v1::CreateSessionRequest request;
  *request.mutable_snapshot() = stored.snapshot();
  request.set_session_id(stored.session_id());
  request.set_label(stored.label());
  request.set_owner(stored.owner());
  request.set_audience(stored.audience());
  request.set_idle_timeout_s(stored.idle_timeout_s());
  request.set_start_paused(!stored.running());
  return request;
}

SessionStore::SessionStore(SessionManager& sessions, const std::string& dir, std::string host)
    : sessions_(sessions), store_(dir, host), host_(std::move(host)) {
  sessions_.set_store_lookup([this](const std::string& id) { return adopt(id); });
}

SessionStore::~SessionStore() {
  sessions_.set_store_lookup(nullptr);
}

std::shared_ptr<Session> SessionStore::adopt(const std::string& id) {
  if (!valid_session_id(id) || sessions_.shutting_down()) return nullptr;
  std::lock_guard adopt_lock(adopt_mutex_);
  if (auto here = sessions_.held(id)) return here;  // restored by a request before us
  std::optional<v1::StoredSession> stored;
  try {
    stored = store_.claim(id);
  } catch (const std::exception& e) {
    spdlog::error("event=store_unreadable session={} error={}", id, logfmt_value(e.what()));
    throw ApiError(grpc::StatusCode::DATA_LOSS,
                   "session_id: the stored snapshot of '" + id + "' is unreadable");
  }
  if (!stored) return nullptr;
  try {
    auto session = restore(*stored);
    store_.release(id, true);
    return session;
  } catch (...) {
    store_.release(id, false);  // leave it for another host (or a later try)
    throw;
  }
}

std::shared_ptr<Session> SessionStore::restore(const v1::StoredSession& stored) {
  auto session = sessions_.create(new_session_from_proto(restore_request(stored)));
  // A timeout of 0 was the preloaded session's "never": keep it.
  if (stored.idle_timeout_s() == 0) session->idle_timeout_s = 0;
  spdlog::info("event=session_adopted session={} step={} from_host={} running={}",
               stored.session_id(), stored.snapshot().step(), logfmt_value(stored.saved_by()),
               stored.running());
  return session;
}

int SessionStore::adopt_all() {
  int adopted = 0;
  for (const std::string& id : store_.stored_ids()) {
    try {
      if (adopt(id)) ++adopted;
    } catch (const std::exception& e) {
      spdlog::error("event=adopt_failed session={} error={}", id, logfmt_value(e.what()));
    }
  }
  return adopted;
}

int SessionStore::drain() {
  const std::vector<std::shared_ptr<Session>> sessions = sessions_.refuse_new_sessions();
  // Every session is saved before any is handed off. A client learns of the move from the first
  // SessionMoved and then sends all its calls to the next host, for its other sessions too (the
  // load tester shares one client among them): handed off one by one, the next host was asked
  // for a session this host had not saved yet and answered NOT_FOUND (seen on a busy machine).
  std::vector<std::shared_ptr<Session>> saved_sessions;
  for (const auto& s : sessions) {
    const bool was_running = s->running;
    s->moving = true;     // from here requests that would change it are refused, not lost
    s->pause_stepping();  // the state is final from here on
    try {
      store_.save(stored_form(*s, was_running, host_));
      saved_sessions.push_back(s);
    } catch (const std::exception& e) {
      s->moving = false;  // it stays here
      // The session cannot be saved (disk full?): it stays here and ends with the server.
      spdlog::error("event=drain_failed session={} error={}", s->id(), logfmt_value(e.what()));
    }
  }
  for (const auto& s : saved_sessions) {
    v1::SessionMoved moved;
    moved.set_session_id(s->id());
    moved.set_reason("drained");
    sessions_.hand_off(s->id(), moved);
  }
  const int saved = static_cast<int>(saved_sessions.size());
  spdlog::info("event=drained saved={} of={} store={}", saved, sessions.size(),
               logfmt_value(store_.dir().string()));
  return saved;
}

}  // namespace softbody::server
