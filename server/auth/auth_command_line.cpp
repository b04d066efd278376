#include "server/auth/auth_command_line.h"

#include <cstdio>
#include <nlohmann/json.hpp>

#include "server/auth/token_file.h"
#include "server/logging.h"

namespace softbody::server {

void add_auth_options(CLI::App& app, AuthCommandLine& line) {
  app.add_option("--token-file", line.options.token_file,
                 "bearer tokens (hashed secrets, roles, quotas; docs/security.md), reread when "
                 "the file changes");
  app.add_option("--jwt-public-key", line.options.jwt.public_key,
                 "PEM public key verifying JWT bearer tokens (RS256 or ES256), reread when it "
                 "changes");
  app.add_option("--jwt-issuer", line.options.jwt.issuer, "required 'iss' of JWTs");
  app.add_option("--jwt-audience", line.options.jwt.audience, "required 'aud' of JWTs");
  app.add_flag("--allow-unauthenticated", line.allow_unauthenticated,
               "listen beyond loopback without --token-file or --jwt-public-key (anyone who "
               "reaches the ports may do anything: trusted networks only)");
  app.add_option("--new-token", line.new_token,
                 "NAME:ROLE: print a new token's secret and its --token-file entry, and exit");
}

bool is_loopback_address(const std::string& address) {
  const auto colon = address.rfind(':');
  std::string host = colon == std::string::npos ? address : address.substr(0, colon);
  if (host.size() >= 2 && host.front() == '[' && host.back() == ']')
    host = host.substr(1, host.size() - 2);
  return host == "localhost" || host == "::1" || host.rfind("127.", 0) == 0;
}

int print_new_token(const std::string& name_and_role) {
  const auto colon = name_and_role.rfind(':');
  const std::string name = name_and_role.substr(0, colon);
  const std::string role = colon == std::string::npos ? "" : name_and_role.substr(colon + 1);
  if (name.empty() || !parse_role(role)) {
    std::fprintf(stderr,
                 "--new-token: expected NAME:ROLE with ROLE trainee, instructor or admin, "
                 "got '%s'\n",
                 name_and_role.c_str());
    return 2;
  }
  const std::string secret = new_token_secret();
  const nlohmann::json entry = {{"name", name}, {"role", role}, {"sha256", sha256_hex(secret)}};
  std::printf("%s\n%s\n", secret.c_str(), entry.dump().c_str());
  std::fprintf(stderr,
               "softbody-server: give the first line to %s (it is shown only now); add the second "
               "to the \"tokens\" list of the --token-file\n",
               name.c_str());
  return 0;
}

std::unique_ptr<Authenticator> authenticator_for(const AuthCommandLine& line,
                                                 const std::string& grpc_address,
                                                 const std::string& http_address) {
  std::unique_ptr<Authenticator> auth;
  try {
    auth = std::make_unique<Authenticator>(line.options);
  } catch (const std::exception& e) {
    spdlog::error("event=startup_failed error={}", logfmt_value(e.what()));
    return nullptr;
  }
  if (auth->enabled()) {
    spdlog::info("event=auth_enabled token_file={} jwt_public_key={}",
                 logfmt_value(line.options.token_file),
                 logfmt_value(line.options.jwt.public_key.string()));
    return auth;
  }
  const bool local = is_loopback_address(grpc_address) && is_loopback_address(http_address);
  if (!local && !line.allow_unauthenticated) {
    spdlog::error("event=startup_failed error={}",
                  logfmt_value("refusing to listen on " + grpc_address + " and " + http_address +
                               " without authentication: give --token-file or --jwt-public-key "
                               "(docs/security.md), bind loopback addresses, or pass "
                               "--allow-unauthenticated on a trusted network"));
    return nullptr;
  }
  spdlog::warn(
      "event=auth_disabled DEVELOPMENT MODE: no authentication. Anyone who reaches {} or {} may "
      "list, join, steer and delete every session.{}",
      grpc_address, http_address,
      local ? " (loopback only)" : " (--allow-unauthenticated: beyond loopback!)");
  return auth;
}

}  // namespace softbody::server
