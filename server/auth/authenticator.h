// Turns a call's bearer token into a Caller. gRPC calls carry it in the metadata
// ("authorization: Bearer TOKEN"), the browser gateway in its connection's first message (never in
// the URL, which lands in logs). A token with two dots is a JWT (when a key is configured),
// anything else is looked up in the token file. Without either configured every caller is an
// anonymous admin (development mode; the server says so loudly at start).
#pragma once

#include <memory>
#include <string>

#include "server/auth/caller.h"
#include "server/auth/jwt_verifier.h"
#include "server/auth/token_file.h"

namespace softbody::server {

struct AuthOptions {
  std::string token_file;  // "" : no token file
  JwtOptions jwt;          // public_key "" : no JWTs
};

// Where a request carries its token: what a refusal tells the caller to send.
enum class TokenCarrier {
  kGrpcMetadata,  // gRPC calls: metadata "authorization: Bearer TOKEN"
  kHttpHeader,    // plain HTTP (/metrics, /status): header "Authorization: Bearer TOKEN"
};

class Authenticator {
 public:
  Authenticator() = default;  // development mode
  // Reads the token file and the key; throws std::runtime_error naming the file at fault.
  explicit Authenticator(const AuthOptions& options);

  bool enabled() const { return tokens_ || jwt_; }
  // From an "authorization" value ("Bearer TOKEN"); throws ApiError UNAUTHENTICATED saying what
  // is missing or wrong, and how to send a token by `carrier`.
  Caller authenticate(const std::string& authorization,
                      TokenCarrier carrier = TokenCarrier::kGrpcMetadata) const;
  // From a bare token (the gateway's first message).
  Caller authenticate_token(const std::string& token) const;

 private:
  std::unique_ptr<TokenFile> tokens_;
  std::unique_ptr<JwtVerifier> jwt_;
};

}  // namespace softbody::server
