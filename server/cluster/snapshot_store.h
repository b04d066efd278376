// Where a host leaves its sessions when it stops (SIGTERM in a cluster) and where another host
// finds them: one file per session, SESSION_ID.snapshot, a binary StoredSession, in a folder that
// may be a shared volume (NFS, a Kubernetes ReadWriteMany claim) or an object-store mount.
// Writes are atomic (temporary file, fsync, rename); a host takes a session by renaming its file
// to a claim, so two hosts asked for the same session at once never both restore it.
#pragma once

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "softbody/v1/cluster.pb.h"

namespace softbody::server {

class SnapshotStore {
 public:
  // Creates the folder if needed; throws std::runtime_error naming it when it is not writable.
  SnapshotStore(std::filesystem::path dir, std::string host);

  const std::filesystem::path& dir() const { return dir_; }
  // Throws std::runtime_error (disk full, permissions) naming the file; a failed save leaves no
  // partial file behind.
  void save(const v1::StoredSession& session);
  // Takes the stored session `id` for this host: nullopt when the store has none (or another host
  // took it first). Throws std::runtime_error when the file is unreadable; it is then left in
  // place, renamed *.unreadable, for an operator.
  std::optional<v1::StoredSession> claim(const std::string& id);
  // After a claimed session was restored: removes the claim. After a failed restore: puts the
  // session back for another host.
  void release(const std::string& id, bool restored);
  std::vector<std::string> stored_ids() const;

 private:
  std::filesystem::path file(const std::string& id) const;
  std::filesystem::path claim_file(const std::string& id) const;

  std::filesystem::path dir_;
  std::string host_;
};

}  // namespace softbody::server
