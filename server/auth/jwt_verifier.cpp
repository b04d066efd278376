#include "server/auth/jwt_verifier.h"

#include <jwt.h>

#include <cstdlib>
#include <ctime>
#include <fstream>
#include <memory>
#include <nlohmann/json.hpp>
#include <sstream>

#include "server/api_error.h"
#include "server/auth/token_file.h"
#include "server/logging.h"

namespace softbody::server {

namespace fs = std::filesystem;

namespace {

std::string read_key(const fs::path& path) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  if (!in || text.str().find("-----BEGIN") == std::string::npos)
    throw std::runtime_error(path.string() + ": not a readable PEM public key");
  return text.str();
}

[[noreturn]] void refuse(const std::string& why) {
  throw ApiError(grpc::StatusCode::UNAUTHENTICATED, "bearer token (JWT): " + why);
}

}  // namespace

JwtVerifier::JwtVerifier(JwtOptions options)
    : options_(std::move(options)), watch_(options_.public_key) {
  key_ = read_key(options_.public_key);
}

void JwtVerifier::reload_if_changed() {
  if (!watch_.changed()) return;
  try {
    key_ = read_key(options_.public_key);
    spdlog::info("event=jwt_key_reloaded file={}", logfmt_value(options_.public_key.string()));
  } catch (const std::exception& e) {
    spdlog::error("event=jwt_key_reload_failed error={} (the previous key stays)",
                  logfmt_value(e.what()));
  }
}

Caller JwtVerifier::verify(const std::string& token) {
  std::string key;
  {
    std::lock_guard lock(mutex_);
    reload_if_changed();
    key = key_;
  }
  jwt_t* raw = nullptr;
  if (jwt_decode(&raw, token.c_str(), reinterpret_cast<const unsigned char*>(key.data()),
                 static_cast<int>(key.size())) != 0 ||
      raw == nullptr)
    refuse("malformed, or its signature does not verify with the configured key");
  const std::unique_ptr<jwt_t, decltype(&jwt_free)> jwt(raw, jwt_free);
  // Only the asymmetric algorithms: an HS256 token "signed" with the public key as an HMAC
  // secret (algorithm confusion) or an unsigned one must not pass.
  const jwt_alg_t alg = jwt_get_alg(jwt.get());
  if (alg != JWT_ALG_RS256 && alg != JWT_ALG_ES256)
    refuse(std::string("algorithm ") + jwt_alg_str(alg) + " is not accepted (RS256 or ES256)");

  char* claims_text = jwt_get_grants_json(jwt.get(), nullptr);
  if (!claims_text) refuse("no claims");
  const nlohmann::json claims = nlohmann::json::parse(claims_text, nullptr, false);
  std::free(claims_text);  // libjwt allocates with malloc (no jwt_set_alloc here)
  if (!claims.is_object()) refuse("claims are not a JSON object");

  const long now = static_cast<long>(std::time(nullptr));
  if (!claims.contains("exp") || !claims["exp"].is_number()) refuse("the 'exp' claim is required");
  if (claims["exp"].get<double>() <= static_cast<double>(now)) refuse("expired");
  if (claims.contains("nbf") && claims["nbf"].is_number() &&
      claims["nbf"].get<double>() > static_cast<double>(now))
    refuse("not valid yet (nbf)");
  if (!options_.issuer.empty() && claims.value("iss", std::string()) != options_.issuer)
    refuse("issuer is not '" + options_.issuer + "'");
  if (!options_.audience.empty()) {
    const nlohmann::json& aud = claims.contains("aud") ? claims["aud"] : nlohmann::json();
    bool ok = aud.is_string() && aud.get<std::string>() == options_.audience;
    if (aud.is_array())
      for (const auto& a : aud) ok |= a.is_string() && a.get<std::string>() == options_.audience;
    if (!ok) refuse("audience does not include '" + options_.audience + "'");
  }
  Caller c;
  c.authenticated = true;
  if (!claims.contains("sub") || !claims["sub"].is_string() ||
      claims["sub"].get<std::string>().empty())
    refuse("the 'sub' claim is required");
  c.subject = claims["sub"];
  const auto role = parse_role(claims.value("role", std::string()));
  if (!role) refuse("the 'role' claim must be trainee, instructor or admin");
  c.role = *role;
  if (claims.contains("quota")) {
    try {
      c.quota = parse_quota(claims["quota"].dump(), "quota claim");
    } catch (const std::exception& e) {
      refuse(e.what());
    }
  }
  return c;
}

}  // namespace softbody::server
