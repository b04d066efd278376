// The server under test: the built softbody-server with the project's scenes.
#pragma once

#include <gtest/gtest.h>

#include "server/server_process.h"

namespace softbody::test {

using server::http_get;

// CPU admission is off unless a test gives --max-cpu-load: a test not about admission says what
// capacity it needs (--max-sessions) instead of depending on how fast the machine steps.
class TestServer : public server::ServerProcess {
 public:
  explicit TestServer(std::vector<std::string> flags = {})
      : TestServer(SOFTBODY_SERVER, std::move(flags)) {}
  // `binary`: a wrapper that runs softbody-server (e.g. under a ulimit).
  TestServer(const std::string& binary, std::vector<std::string> flags)
      : ServerProcess(binary, SOFTBODY_SCENES, with_admission_default(std::move(flags))) {}

  static std::vector<std::string> with_admission_default(std::vector<std::string> flags) {
    for (const std::string& f : flags)
      if (f == "--max-cpu-load") return flags;
    flags.insert(flags.begin(), {"--max-cpu-load", "0"});
    return flags;
  }
};

// One server shared by every test of a suite: started before the first test, stopped with
// SIGTERM after the last, which must end it cleanly. A suite may declare a public static
// `server_flags()` to start it with flags.
template <typename Suite>
class SharedServerTest : public ::testing::Test {
 public:
  static std::vector<std::string> server_flags() { return {}; }

 protected:
  static void SetUpTestSuite() { server_ = new TestServer(Suite::server_flags()); }
  static void TearDownTestSuite() {
    EXPECT_EQ(server_->terminate(), 0) << server_->log();
    delete server_;
    server_ = nullptr;
  }
  static inline TestServer* server_ = nullptr;
};

}  // namespace softbody::test
