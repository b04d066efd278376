// softbody-server's authentication flags and the start-up rules around them: a server that
// listens beyond loopback without authentication must be asked to (--allow-unauthenticated), and
// development mode says loudly that anyone may do anything.
#pragma once

#include <CLI/CLI.hpp>
#include <memory>
#include <string>

#include "server/auth/authenticator.h"

namespace softbody::server {

struct AuthCommandLine {
  AuthOptions options;
  bool allow_unauthenticated = false;
  std::string new_token;  // NAME:ROLE: print a new secret and its token-file entry, then exit
};

void add_auth_options(CLI::App& app, AuthCommandLine& line);

// True for 127.0.0.0/8, ::1 and "localhost" hosts of a "host:port" address.
bool is_loopback_address(const std::string& address);

// Prints the secret (line 1) and its token-file entry (line 2) for --new-token; exit status.
int print_new_token(const std::string& name_and_role);

// The authenticator for the flags, or nullptr after logging why the server must not start
// (unreadable token file or key, or an unauthenticated non-loopback listener).
std::unique_ptr<Authenticator> authenticator_for(const AuthCommandLine& line,
                                                 const std::string& grpc_address,
                                                 const std::string& http_address);

}  // namespace softbody::server
