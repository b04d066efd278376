// The flags every tool (softbody-client, softbody-load, softbody-viewer) takes to reach a server
// that speaks TLS or requires a bearer token (docs/security.md). Header-only: the client library
// itself does not depend on CLI11.
#pragma once

#include <CLI/CLI.hpp>
#include <string>

#include "client-cpp/client/client.h"

namespace softbody::client {

struct SecurityFlags {
  std::string tls_ca;      // --tls-ca
  std::string token_file;  // --token-file ("" : SOFTBODY_TOKEN)
};

inline void add_security_flags(CLI::App& app, SecurityFlags& flags) {
  app.add_option("--tls-ca", flags.tls_ca,
                 "PEM certificate of the authority that signed the server's TLS certificate: speak "
                 "TLS to a server started with --tls-cert");
  app.add_option("--token-file", flags.token_file,
                 "file holding the bearer token for servers that require one (default: the "
                 "SOFTBODY_TOKEN environment variable)");
}

// Sets the options' CA file and token; throws std::runtime_error naming an unreadable file.
inline void apply_security_flags(const SecurityFlags& flags, ClientOptions& options) {
  options.tls_ca_file = flags.tls_ca;
  options.load_token(flags.token_file);
}

}  // namespace softbody::client
