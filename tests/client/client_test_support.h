// Helpers shared by the native client's integration tests.
#pragma once

#include <unistd.h>

#include <gtest/gtest.h>

#include <chrono>
#include <filesystem>
#include <string>
#include <thread>

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

// Polls until session `id` has this many subscribers and tools (the streams a tool or a test
// opened, or let go), for at most `timeout`; the failure says what the session had.
inline ::testing::AssertionResult session_has_streams(Client& client, const std::string& id,
                                                      int subscribers, int tools,
                                                      std::chrono::milliseconds timeout) {
  const auto until = std::chrono::steady_clock::now() + timeout;
  for (;;) {
    auto info = client.get_session(id);
    if (info && info->subscribers() == subscribers && info->tools() == tools)
      return ::testing::AssertionSuccess();
    if (std::chrono::steady_clock::now() > until)
      return ::testing::AssertionFailure()
             << id << ": " << (info ? info->subscribers() : -1) << " subscribers, "
             << (info ? info->tools() : -1) << " tools; expected " << subscribers << ", " << tools;
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
}

// A path in the temporary folder unique to this test process, fresh: whatever an earlier process
// with the same pid left there (a run killed before its clean-up) is removed first.
inline std::string temp_path(const std::string& name) {
  const std::filesystem::path path =
      std::filesystem::temp_directory_path() /
      ("softbody-client-test-" + std::to_string(getpid()) + "-" + name);
  std::filesystem::remove_all(path);
  return path.string();
}

}  // namespace softbody::client::testing
