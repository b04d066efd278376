#include "server/auth/authenticator.h"

#include <algorithm>

#include "server/api_error.h"

namespace softbody::server {

Authenticator::Authenticator(const AuthOptions& options) {
  if (!options.token_file.empty()) tokens_ = std::make_unique<TokenFile>(options.token_file);
  if (!options.jwt.public_key.empty()) jwt_ = std::make_unique<JwtVerifier>(options.jwt);
}

Caller Authenticator::authenticate(const std::string& authorization, TokenCarrier carrier) const {
  if (!enabled()) return Caller::anonymous();
  if (authorization.empty())
    throw ApiError(grpc::StatusCode::UNAUTHENTICATED,
                   carrier == TokenCarrier::kHttpHeader
                       ? "this server requires a bearer token: send the HTTP header "
                         "'Authorization: Bearer TOKEN' (e.g. curl -H \"Authorization: Bearer "
                         "$(cat FILE)\" URL)"
                       : "this server requires a bearer token (gRPC metadata 'authorization: "
                         "Bearer TOKEN'; softbody-client --token-file FILE)");
  constexpr std::string_view kBearer = "Bearer ";
  if (authorization.size() <= kBearer.size() ||
      !std::equal(kBearer.begin(), kBearer.end(), authorization.begin(),
                  [](char a, char b) { return std::tolower(a) == std::tolower(b); }))
    throw ApiError(grpc::StatusCode::UNAUTHENTICATED, "authorization: expected 'Bearer TOKEN'");
  return authenticate_token(authorization.substr(kBearer.size()));
}

Caller Authenticator::authenticate_token(const std::string& token) const {
  if (!enabled()) return Caller::anonymous();
  if (token.empty())
    throw ApiError(grpc::StatusCode::UNAUTHENTICATED, "this server requires a bearer token");
  if (token.size() > 8192)
    throw ApiError(grpc::StatusCode::UNAUTHENTICATED, "bearer token: longer than 8192 bytes");
  if (jwt_ && std::count(token.begin(), token.end(), '.') == 2) return jwt_->verify(token);
  if (tokens_) {
    if (auto caller = tokens_->find(token)) return *caller;
  }
  throw ApiError(grpc::StatusCode::UNAUTHENTICATED, "bearer token: unknown or revoked");
}

}  // namespace softbody::server
