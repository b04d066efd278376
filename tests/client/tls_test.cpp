// gRPC over TLS (issue 14): a server with a certificate from files (scripts/dev-cert.sh makes a
// development authority and certificate), the native client and the tools (softbody-client,
// softbody-load) speaking TLS to it, cleartext and untrusting clients refused, and a renewed
// certificate taking effect for new connections while a running session's stream goes on.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <thread>

#include "tests/client/client_test_support.h"
#include "tests/dev_certificates.h"
#include "tests/process.h"

namespace softbody::client {
namespace {

namespace fs = std::filesystem;

ClientOptions tls_options(int port, const std::string& ca) {
  ClientOptions o;
  o.address = "127.0.0.1:" + std::to_string(port);
  o.deadline = std::chrono::milliseconds(5000);
  o.tls_ca_file = ca;
  return o;
}

TEST(Tls, ClientsSpeakTlsAndARenewedCertificateServesNewConnections) {
  const std::string dir = testing::temp_path("tls");
  test::make_dev_certificates(dir + "/first");
  test::make_dev_certificates(dir +
                              "/second");  // another authority: the renewal is told apart by it
  fs::create_directories(dir + "/live");
  for (const char* f : {"server.pem", "server.key"})
    fs::copy_file(dir + "/first/" + f, dir + "/live/" + f);
  test::TestServer server({"--tls-cert", dir + "/live/server.pem", "--tls-key",
                           dir + "/live/server.key", "--tls-reload-s", "1"});
  EXPECT_NE(server.log().find("grpc_tls=on"), std::string::npos);

  Client client(tls_options(server.grpc_port(), dir + "/first/ca.pem"));
  auto made = client.create_session("cantilever");
  ASSERT_TRUE(made) << made.error().to_string();
  std::atomic<long> frames{0};
  SubscriptionOptions o;
  o.max_rate_hz = 30;
  auto subscription = client.subscribe(made->id(), o, [&](const DecodedFrame&) { ++frames; });

  // Cleartext, and TLS to an authority the client does not trust, are refused.
  ClientOptions plain = tls_options(server.grpc_port(), "");
  auto refused = Client(plain).list_sessions();
  EXPECT_FALSE(refused);
  EXPECT_EQ(refused.error().code, grpc::StatusCode::UNAVAILABLE);
  // gRPC says only "Socket closed": the client says what is likely wrong.
  EXPECT_NE(refused.error().message.find("the server may speak TLS"), std::string::npos)
      << refused.error().message;
  auto plain_cli = test::run_process(std::string(SOFTBODY_CLIENT) + " --server 127.0.0.1:" +
                                     std::to_string(server.grpc_port()) + " --deadline 5 list");
  EXPECT_EQ(plain_cli.exit_code, 1);
  EXPECT_NE(plain_cli.err.find("(the server may speak TLS: give the authority its certificate "
                               "chains to with --tls-ca PEM"),
            std::string::npos)
      << plain_cli.err;
  EXPECT_FALSE(Client(tls_options(server.grpc_port(), dir + "/second/ca.pem")).list_sessions());

  // The command-line tool over TLS.
  auto listed = test::run_process(std::string(SOFTBODY_CLIENT) +
                                  " --server 127.0.0.1:" + std::to_string(server.grpc_port()) +
                                  " --tls-ca " + dir + "/first/ca.pem list");
  EXPECT_EQ(listed.exit_code, 0) << listed.err;
  EXPECT_NE(listed.out.find(made->id()), std::string::npos);

  // The load tester over TLS: its haptic tool and subscriber run without an error.
  auto load = test::run_process(
      std::string(SOFTBODY_LOAD) + " --server 127.0.0.1:" + std::to_string(server.grpc_port()) +
      " --tls-ca " + dir + "/first/ca.pem --scene cantilever --sessions 1" +
      " --subscribers-per-session 1 --haptic-per-session 1 --rate 200 --frame-rate 30" +
      " --duration 1 --warmup 0.2 --json --max-replies-missing 0");
  ASSERT_EQ(load.exit_code, 0) << load.out << load.err;
  const auto report = nlohmann::json::parse(load.out);
  EXPECT_EQ(report["errors"]["total"].get<long>(), 0) << report["errors"].dump();
  EXPECT_GT(report["force_reply_latency_ms"]["count"].get<long>(), 100);  // 200 Hz x 1 s
  EXPECT_GT(report["frames_received"].get<long>(), 0);
  // ...and refused without the authority.
  auto untrusting = test::run_process(std::string(SOFTBODY_LOAD) +
                                      " --server 127.0.0.1:" + std::to_string(server.grpc_port()) +
                                      " --scene cantilever --sessions 1 --duration 1");
  EXPECT_NE(untrusting.exit_code, 0);
  EXPECT_NE(untrusting.err.find("cannot connect to 127.0.0.1:"), std::string::npos)
      << untrusting.err;
  EXPECT_NE(untrusting.err.find("--tls-ca"), std::string::npos) << untrusting.err;

  // Renew: new files in place; within a few reload intervals new connections get the new
  // certificate, and the open stream never stopped.
  for (const char* f : {"server.pem", "server.key"})
    fs::copy_file(dir + "/second/" + f, dir + "/live/" + std::string(f) + ".new");
  fs::rename(dir + "/live/server.key.new", dir + "/live/server.key");
  fs::rename(dir + "/live/server.pem.new", dir + "/live/server.pem");
  bool renewed = false;
  for (int i = 0; i < 100 && !renewed; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
    renewed = static_cast<bool>(
        Client(tls_options(server.grpc_port(), dir + "/second/ca.pem")).list_sessions());
  }
  EXPECT_TRUE(renewed) << "the renewed certificate was not served within 10 s";
  const long before = frames.load();
  std::this_thread::sleep_for(std::chrono::milliseconds(500));
  EXPECT_GT(frames.load(), before) << "the stream opened before the renewal stopped";
  EXPECT_EQ(subscription->reconnects(), 0);
  subscription.reset();
  EXPECT_EQ(server.terminate(), 0);
  fs::remove_all(dir);
}

}  // namespace
}  // namespace softbody::client
