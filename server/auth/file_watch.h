// Tells when a file was modified since last asked, looking at most once a second (configuration
// reread on change: token files, JWT keys). Not thread-safe: callers hold their own lock.
#pragma once

#include <chrono>
#include <filesystem>

namespace softbody::server {

class FileWatch {
 public:
  // Remembers the file's current modification time.
  explicit FileWatch(std::filesystem::path path);
  // True once for each change of the modification time (a file gone is no change).
  bool changed();
  const std::filesystem::path& path() const { return path_; }

 private:
  std::filesystem::path path_;
  std::filesystem::file_time_type modified_{};
  std::chrono::steady_clock::time_point checked_{};
};

}  // namespace softbody::server
