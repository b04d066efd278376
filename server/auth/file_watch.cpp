#include "server/auth/file_watch.h"

namespace softbody::server {

FileWatch::FileWatch(std::filesystem::path path)
    : path_(std::move(path)), checked_(std::chrono::steady_clock::now()) {
  std::error_code ec;
  modified_ = std::filesystem::last_write_time(path_, ec);
}

bool FileWatch::changed() {
  const auto now = std::chrono::steady_clock::now();
  if (now - checked_ < std::chrono::seconds(1)) return false;
  checked_ = now;
  std::error_code ec;
  const auto modified = std::filesystem::last_write_time(path_, ec);
  if (ec || modified == modified_) return false;
  modified_ = modified;
  return true;
}

}  // namespace softbody::server
