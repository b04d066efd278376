// Helpers shared by the native client's integration tests.
#pragma once

#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <string>

#include "client-cpp/client/client.h"
#include "tests/server/test_server.h"

namespace softbody::client::testing {

// Client options for a server under test (a generous deadline: the machine may be loaded).
inline ClientOptions options_for(const server::ServerProcess& server, int deadline_ms = 30000) {
  ClientOptions o;
  o.address = "127.0.0.1:" + std::to_string(server.grpc_port());
  o.deadline = std::chrono::milliseconds(deadline_ms);
  return o;
}

// A path in the temporary folder unique to this test process.
inline std::string temp_path(const std::string& name) {
  return (std::filesystem::temp_directory_path() /
          ("softbody-client-test-" + std::to_string(getpid()) + "-" + name))
      .string();
}

}  // namespace softbody::client::testing
