// Bearer tokens from a file of hashed secrets, reread when the file changes (revoking a token is
// deleting its line; no restart). The file (JSON):
//   {"tokens": [{"name": "alice", "role": "trainee", "sha256": "<hex SHA-256 of the secret>",
//                "quota": {"max_sessions": 2, "max_upload_vertices": 50000,
//                          "max_tool_rate_hz": 2000, "max_subscriptions": 4}}]}
// Only hashes are stored: a leaked file does not let anyone in. `softbody-server --new-token
// NAME:ROLE` makes a secret and its entry.
#pragma once

#include <filesystem>
#include <map>
#include <mutex>
#include <optional>
#include <string>

#include "server/auth/caller.h"
#include "server/auth/file_watch.h"

namespace softbody::server {

// Hex SHA-256 (OpenSSL).
std::string sha256_hex(const std::string& data);
// A new random secret ("sbt_" + 43 base64url characters: 256 bits from OpenSSL's RAND_bytes).
std::string new_token_secret();

class TokenFile {
 public:
  // Reads the file now; throws std::runtime_error naming the file and the problem.
  explicit TokenFile(std::filesystem::path path);

  // The caller holding `secret`, or nullopt. Rereads the file first when it changed (checked at
  // most once a second); a file that no longer parses keeps the previous tokens and is logged.
  std::optional<Caller> find(const std::string& secret);
  int size() const;
  const std::filesystem::path& path() const { return path_; }

 private:
  void reload_if_changed();
  static std::map<std::string, Caller> parse(const std::filesystem::path& path);

  std::filesystem::path path_;
  mutable std::mutex mutex_;
  std::map<std::string, Caller> by_hash_;  // guarded by mutex_
  FileWatch watch_;                        // guarded by mutex_
};

// Quota from its JSON object (unknown keys are errors, as in scenes); throws std::runtime_error.
Quota parse_quota(const std::string& json_text, const std::string& where);

}  // namespace softbody::server
