#include "server/cluster/snapshot_store.h"

#include "server/sessions/session.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <stdexcept>

namespace fs = std::filesystem;

namespace softbody::server {
namespace {

constexpr const char* kSuffix = ".snapshot";

std::runtime_error io_error(const std::string& what, const fs::path& path, int error) {
  return std::runtime_error(what + " " + path.string() + ": " + std::strerror(error));
}

}  // namespace

SnapshotStore::SnapshotStore(fs::path dir, std::string host)
    : dir_(std::move(dir)), host_(std::move(host)) {
  std::error_code ec;
  fs::create_directories(dir_, ec);
  if (ec) throw std::runtime_error("--snapshot-store " + dir_.string() + ": " + ec.message());
  if (access(dir_.c_str(), W_OK) != 0)
    throw io_error("--snapshot-store: cannot write", dir_, errno);
}

fs::path SnapshotStore::file(const std::string& id) const {
  return dir_ / (id + kSuffix);
}

fs::path SnapshotStore::claim_file(const std::string& id) const {
  return dir_ / (id + kSuffix + ".claimed-by-" + host_ + "-" + std::to_string(getpid()));
}

void SnapshotStore::save(const v1::StoredSession& session) {
  if (!valid_session_id(session.session_id()))
    throw std::runtime_error("snapshot store: invalid session id '" + session.session_id() + "'");
  const std::string bytes = session.SerializeAsString();
  const fs::path final_path = file(session.session_id());
  const fs::path tmp = final_path.string() + ".tmp-" + std::to_string(getpid());
  const int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0640);
  if (fd < 0) throw io_error("cannot create", tmp, errno);
  size_t written = 0;
  while (written < bytes.size()) {
    const ssize_t n = ::write(fd, bytes.data() + written, bytes.size() - written);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      const int error = n < 0 ? errno : ENOSPC;
      ::close(fd);
      ::unlink(tmp.c_str());
      throw io_error("cannot write", tmp, error);
    }
    written += static_cast<size_t>(n);
  }
  // The data must be on disk before the rename makes it visible: a host that dies right after
  // must not leave a truncated snapshot under the final name.
  if (::fsync(fd) != 0 || ::close(fd) != 0) {
    const int error = errno;
    ::unlink(tmp.c_str());
    throw io_error("cannot write", tmp, error);
  }
  if (::rename(tmp.c_str(), final_path.c_str()) != 0) {
    const int error = errno;
    ::unlink(tmp.c_str());
    throw io_error("cannot rename into", final_path, error);
  }
}

std::optional<v1::StoredSession> SnapshotStore::claim(const std::string& id) {
  if (!valid_session_id(id)) return std::nullopt;
  const fs::path claimed = claim_file(id);
  if (::rename(file(id).c_str(), claimed.c_str()) != 0) {
    if (errno == ENOENT) return std::nullopt;
    throw io_error("cannot claim", file(id), errno);
  }
  std::ifstream in(claimed, std::ios::binary);
  v1::StoredSession session;
  if (!in || !session.ParseFromIstream(&in) || session.session_id() != id) {
    const fs::path bad = file(id).string() + ".unreadable";
    ::rename(claimed.c_str(), bad.c_str());
    throw std::runtime_error("snapshot store: " + bad.string() + " is not a stored session of " +
                             id);
  }
  return session;
}

void SnapshotStore::release(const std::string& id, bool restored) {
  const fs::path claimed = claim_file(id);
  if (restored)
    ::unlink(claimed.c_str());
  else
    ::rename(claimed.c_str(), file(id).c_str());
}

std::vector<std::string> SnapshotStore::stored_ids() const {
  std::vector<std::string> ids;
  std::error_code ec;
  for (const auto& entry : fs::directory_iterator(dir_, ec)) {
    const std::string name = entry.path().filename().string();
    const std::string suffix = kSuffix;
    if (name.size() > suffix.size() &&
        name.compare(name.size() - suffix.size(), suffix.size(), suffix) == 0)
      ids.push_back(name.substr(0, name.size() - suffix.size()));
  }
  return ids;
}

}  // namespace softbody::server
