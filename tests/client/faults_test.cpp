// Faults on loopback (issue 14): clients killed mid-stream, a subscriber that stops reading, a
// client opening thousands of streams, the server stopped (SIGSTOP) and continued, and garbage on
// the TLS port. After each: nothing lost (the sessions keep stepping from where they were), other
// sessions unaffected, the server still answers health.
#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <fstream>
#include <thread>

#include "tests/client/client_test_support.h"
#include "tests/dev_certificates.h"
#include "tests/process.h"
#include "tests/server/ws_client.h"

namespace softbody::client {
namespace {

using namespace std::chrono_literals;

// Starts `command` in its own process (sh -c); returns its pid.
pid_t spawn(const std::string& command) {
  const pid_t pid = fork();
  if (pid == 0) {
    execl("/bin/sh", "sh", "-c", ("exec " + command + " >/dev/null 2>&1").c_str(), nullptr);
    _exit(127);
  }
  return pid;
}

class Faults : public ::testing::Test {
 protected:
  void SetUp() override {
    server_ = std::make_unique<test::TestServer>(
        std::vector<std::string>{"--max-subscribers", "16", "--max-tools", "4"});
    client_ = std::make_unique<Client>(testing::options_for(*server_, 5000));
    for (auto* id : {&victim_, &bystander_}) {
      auto made = client_->create_session("cantilever");
      ASSERT_TRUE(made) << made.error().to_string();
      *id = made->id();
    }
  }
  void TearDown() override { EXPECT_EQ(server_->terminate(), 0) << server_->log(); }

  long step_of(const std::string& id) {
    auto info = client_->get_session(id);
    return info ? static_cast<long>(info->last_step().step()) : -1;
  }
  // The session keeps stepping: its step count grows within a few seconds.
  void expect_stepping(const std::string& id) {
    const long before = step_of(id);
    ASSERT_GE(before, 0);
    for (int i = 0; i < 100; ++i) {
      if (step_of(id) > before + 5) return;
      std::this_thread::sleep_for(50ms);
    }
    ADD_FAILURE() << "session " << id << " stopped stepping at " << before;
  }
  void expect_streams(const std::string& id, int subscribers, int tools) {
    EXPECT_TRUE(testing::session_has_streams(*client_, id, subscribers, tools, 10s));
  }
  void expect_healthy() {
    EXPECT_EQ(server::http_get(server_->http_port(), "/healthz").first, 200);
    EXPECT_TRUE(server_->alive());
  }

  std::unique_ptr<server::ServerProcess> server_;
  std::unique_ptr<Client> client_;
  std::string victim_, bystander_;
};

TEST_F(Faults, ClientsKilledMidStreamLeaveNothingBehind) {
  const std::string cli =
      std::string(SOFTBODY_CLIENT) + " --server 127.0.0.1:" + std::to_string(server_->grpc_port());
  const pid_t watcher = spawn(cli + " watch " + victim_);
  const pid_t steerer = spawn(cli + " haptic " + victim_ + " --cpu -2");
  expect_streams(victim_, 1, 1);
  kill(watcher, SIGKILL);
  kill(steerer, SIGKILL);
  waitpid(watcher, nullptr, 0);
  waitpid(steerer, nullptr, 0);
  expect_streams(victim_, 0, 0);  // the server noticed and let the streams go
  expect_stepping(victim_);
  expect_stepping(bystander_);
  expect_healthy();
}

TEST_F(Faults, ASubscriberThatStopsReadingSlowsNoOne) {
  // A raw stream whose reader never reads: the server's one-slot mailbox drops its frames.
  auto stub = server_->stub();
  grpc::ClientContext stalled_context;
  v1::StreamStateRequest request;
  request.set_session_id(victim_);
  request.set_vertices(v1::VERTEX_SET_ALL);
  request.set_encoding(v1::POSITION_ENCODING_RAW_FLOAT32);
  auto stalled = stub->StreamState(&stalled_context, request);
  std::atomic<long> frames{0};
  SubscriptionOptions o;
  o.max_rate_hz = 60;
  auto healthy = client_->subscribe(victim_, o, [&](const DecodedFrame&) { ++frames; });
  std::this_thread::sleep_for(2s);
  EXPECT_GT(frames.load(), 60) << "the reading subscriber got too few frames beside a stalled one";
  expect_stepping(victim_);
  expect_stepping(bystander_);
  stalled_context.TryCancel();
  expect_healthy();
}

TEST_F(Faults, AClientOpeningThousandsOfStreamsIsRefusedPastTheLimit) {
  auto stub = server_->stub();
  std::vector<std::unique_ptr<grpc::ClientContext>> contexts;
  std::vector<std::unique_ptr<grpc::ClientReader<v1::StateFrame>>> readers;
  v1::StreamStateRequest request;
  request.set_session_id(victim_);
  request.set_max_rate_hz(1);
  for (int i = 0; i < 2000; ++i) {
    contexts.push_back(std::make_unique<grpc::ClientContext>());
    readers.push_back(stub->StreamState(contexts.back().get(), request));
  }
  int refused = 0, open = 0;
  for (auto& r : readers) {
    v1::StateFrame frame;
    if (r->Read(&frame)) {
      ++open;
    } else {
      ++refused;
      EXPECT_EQ(r->Finish().error_code(), grpc::StatusCode::RESOURCE_EXHAUSTED);
    }
    if (open + refused >= 200) break;  // enough to see the split
  }
  EXPECT_EQ(open, 16);  // --max-subscribers
  EXPECT_GT(refused, 0);
  for (auto& c : contexts) c->TryCancel();
  readers.clear();
  expect_streams(victim_, 0, 0);
  expect_stepping(bystander_);
  expect_healthy();
}

TEST_F(Faults, AServerStoppedAndContinuedCarriesOn) {
  const long before = step_of(victim_);
  struct Continue {  // whatever happens, the server runs again before the test ends
    pid_t pid;
    ~Continue() { kill(pid, SIGCONT); }
  } resume{server_->pid()};
  ASSERT_EQ(kill(server_->pid(), SIGSTOP), 0);
  // Stopping is asynchronous: wait until the kernel reports the process stopped ('T').
  for (int i = 0; i < 100; ++i) {
    std::ifstream stat("/proc/" + std::to_string(server_->pid()) + "/stat");
    std::string pid, name, state;
    stat >> pid >> name >> state;
    if (state == "T") break;
    std::this_thread::sleep_for(10ms);
  }
  Client impatient(testing::options_for(*server_, 500));
  auto during = impatient.get_session(victim_);
  ASSERT_FALSE(during) << "a stopped server answered";
  EXPECT_EQ(during.error().code, grpc::StatusCode::DEADLINE_EXCEEDED);
  ASSERT_EQ(kill(server_->pid(), SIGCONT), 0);
  // The step count continues from where it was (no reset, no lost session).
  const long after = step_of(victim_);
  EXPECT_GE(after, before);
  expect_stepping(victim_);
  expect_stepping(bystander_);
  expect_healthy();
}

TEST_F(Faults, GarbageOnTheTlsPortHarmsNothing) {
  const std::string dir = testing::temp_path("faults-tls");
  test::make_dev_certificates(dir);
  test::TestServer tls({"--tls-cert", dir + "/server.pem", "--tls-key", dir + "/server.key"});
  // On both TLS ports (gRPC and HTTPS): a malformed TLS handshake, then plaintext HTTP/2 and
  // HTTP/1.1, then a half-open connection.
  for (const int port : {tls.grpc_port(), tls.http_port()}) {
    for (const std::string& garbage :
         {std::string("\x16\x03\x01\x00\xff\x01\x00\x00\xfb\x03\x03garbage", 16),
          std::string("PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n"),
          std::string("GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n"), std::string()}) {
      const int fd = socket(AF_INET, SOCK_STREAM, 0);
      sockaddr_in addr{};
      addr.sin_family = AF_INET;
      addr.sin_port = htons(static_cast<uint16_t>(port));
      inet_pton(AF_INET, "127.0.0.1", &addr.sin_addr);
      ASSERT_EQ(connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr), 0);
      if (!garbage.empty()) (void)!write(fd, garbage.data(), garbage.size());
      close(fd);
    }
  }
  ClientOptions o = testing::options_for(tls, 5000);
  o.tls_ca_file = dir + "/ca.pem";
  Client trusted(o);
  EXPECT_TRUE(trusted.list_sessions());
  EXPECT_EQ(test::https_get(tls.http_port(), "/healthz", dir + "/ca.pem").first, 200);
  EXPECT_TRUE(tls.alive());
  EXPECT_EQ(tls.terminate(), 0);
  std::filesystem::remove_all(dir);
  expect_healthy();
}

// A snapshot store that cannot take the snapshot (its writes fail as on a full disk: the server
// runs under a file-size limit with SIGXFSZ ignored, so write() returns EFBIG). The drain says so,
// leaves no partial file under the session's name, and the server still exits cleanly.
TEST(FaultsStore, ASnapshotThatCannotBeWrittenLeavesNoPartialFile) {
  const std::string dir = testing::temp_path("full-store");
  std::filesystem::create_directories(dir + "/store");
  const std::string wrapper = dir + "/limited-server.sh";
  {
    std::ofstream out(wrapper);
    // 128 blocks of 512 bytes: enough for the log, far too little for a knight snapshot.
    out << "#!/bin/sh\nulimit -f 128\ntrap '' XFSZ\nexec " << SOFTBODY_SERVER << " \"$@\"\n";
  }
  std::filesystem::permissions(wrapper, std::filesystem::perms::owner_all);
  test::TestServer server(wrapper, {"--snapshot-store", dir + "/store", "--log-level", "info"});
  Client client(testing::options_for(server));
  auto made = client.create_session("knight", {}, /*start_paused=*/true);
  ASSERT_TRUE(made) << made.error().to_string();
  ASSERT_TRUE(client.control(made->id(), v1::CONTROL_ACTION_STEP, 5));
  EXPECT_EQ(server.terminate(), 0) << server.log();
  const std::string log = server.log();
  EXPECT_NE(log.find("event=drain_failed session=" + made->id()), std::string::npos) << log;
  EXPECT_NE(log.find("cannot write"), std::string::npos) << log;
  for (const auto& entry : std::filesystem::directory_iterator(dir + "/store"))
    ADD_FAILURE() << "left in the store: " << entry.path();
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace softbody::client
