// JSON Web Tokens signed by an identity provider, verified with its public key (RS256 or ES256;
// libjwt with OpenSSL, Debian's libjwt-dev). Claims:
//   sub   (required) the user: owner of the sessions they create
//   role  (required) trainee | instructor | admin
//   exp   (required) expiry, seconds since 1970; nbf honoured when present
//   iss / aud  checked when the server is given --jwt-issuer / --jwt-audience
//   quota (optional) as in the token file
// The key file is reread when it changes (key rotation without a restart).
#pragma once

#include <chrono>
#include <filesystem>
#include <mutex>
#include <string>

#include "server/auth/caller.h"
#include "server/auth/file_watch.h"

namespace softbody::server {

struct JwtOptions {
  std::filesystem::path public_key;  // PEM
  std::string issuer, audience;      // "" : not checked
};

class JwtVerifier {
 public:
  // Reads the key now; throws std::runtime_error naming the file.
  explicit JwtVerifier(JwtOptions options);
  // The caller the token names; throws ApiError UNAUTHENTICATED saying what is wrong.
  Caller verify(const std::string& token);

 private:
  void reload_if_changed();

  JwtOptions options_;
  std::mutex mutex_;
  std::string key_;  // guarded by mutex_
  FileWatch watch_;  // guarded by mutex_
};

}  // namespace softbody::server
