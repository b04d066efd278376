// Sessions between hosts through a shared folder (--snapshot-store): on SIGTERM every session is
// drained into it; a host asked for a session it does not hold restores it from there under the
// same id (and with --adopt-stored restores all at start). The registry asks it through
// SessionManager::set_store_lookup, so the manager knows nothing of files or protobuf.
#pragma once

#include <memory>
#include <mutex>
#include <string>

#include "server/cluster/snapshot_store.h"
#include "server/sessions/session_manager.h"
#include "softbody/v1/cluster.pb.h"
#include "softbody/v1/session.pb.h"

namespace softbody::server {

// Session `s` (paused, so its state is final) as stored: snapshot, id, label, owner, audience,
// timeout, and `was_running` (the restored session runs again). `host` is the saving host.
v1::StoredSession stored_form(Session& s, bool was_running, const std::string& host);

// The CreateSession request that restores a stored session on any host: its snapshot under its
// own id, label and timeout, running if it was (migration sends it to the target).
v1::CreateSessionRequest restore_request(const v1::StoredSession& stored);

class SessionStore {
 public:
  // Opens (creates) the folder; throws std::runtime_error naming it when it cannot be written.
  SessionStore(SessionManager& sessions, const std::string& dir, std::string host);
  ~SessionStore();
  SessionStore(const SessionStore&) = delete;
  SessionStore& operator=(const SessionStore&) = delete;

  const std::filesystem::path& dir() const { return store_.dir(); }
  // The stored session `id` restored here, or null when the store does not hold it.
  std::shared_ptr<Session> adopt(const std::string& id);
  // Restores every stored session (at start with --adopt-stored); returns how many.
  int adopt_all();
  // On SIGTERM: refuses new sessions, pauses every session, saves it and ends its streams with
  // UNAVAILABLE and a "drained" SessionMoved detail. Returns how many were saved.
  int drain();

 private:
  std::shared_ptr<Session> restore(const v1::StoredSession& stored);

  SessionManager& sessions_;
  SnapshotStore store_;
  std::string host_;
  std::mutex adopt_mutex_;  // one restore at a time (two requests for one drained session)
};

}  // namespace softbody::server
