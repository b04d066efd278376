// The HTTP port over TLS (issue 14): with --tls-cert/--tls-key the server answers HTTPS and WSS
// only; clients that trust the authority get the health endpoint and the gateway, clients of
// another authority and cleartext are refused. A renewed certificate serves new connections
// within the reload interval while an open WebSocket goes on; a renewal caught half-way (a new
// certificate beside the old key) is not taken, and the old pair keeps serving until both match.
#include <gtest/gtest.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <thread>

#include <grpcpp/grpcpp.h>

#include "server/tls_files.h"
#include "softbody/v1/simulation_service.grpc.pb.h"
#include "tests/dev_certificates.h"
#include "tests/server/test_server.h"
#include "tests/server/ws_client.h"

namespace softbody::test {
namespace {

namespace fs = std::filesystem;

// Copies a pair's file over the served one as a renewal would: a new file renamed into place.
void renew(const std::string& from, const std::string& live, const char* file) {
  fs::copy_file(from + "/" + file, live + "/" + file + ".new",
                fs::copy_options::overwrite_existing);
  fs::rename(live + "/" + file + ".new", live + "/" + file);
}

bool trusted_by(int port, const std::string& ca_file) {
  try {
    return https_get(port, "/healthz", ca_file).first == 200;
  } catch (const beast::system_error&) {
    return false;
  }
}

// Polls for up to 10 s (the server rereads the files every second here).
bool eventually(const std::function<bool()>& condition) {
  for (int i = 0; i < 100; ++i) {
    if (condition()) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  return false;
}

std::int64_t next_frame_step(WssClient& ws) {
  for (;;) {
    auto m = ws.receive();
    if (!m) throw std::runtime_error("connection ended: " + ws.error().message());
    if (m->has_frame()) return static_cast<std::int64_t>(m->frame().stats().step());
  }
}

TEST(Https, TheHttpPortSpeaksTlsOnlyAndARenewalKeepsOpenWebSockets) {
  const std::string dir =
      (fs::temp_directory_path() / ("softbody-https-" + std::to_string(getpid()))).string();
  fs::remove_all(dir);  // what a killed run with the same pid left
  make_dev_certificates(dir + "/first");
  make_dev_certificates(dir + "/second");  // another authority: the renewal is told apart by it
  fs::create_directories(dir + "/live");
  for (const char* f : {"server.pem", "server.key"})
    fs::copy_file(dir + "/first/" + f, dir + "/live/" + f);
  TestServer server({"--tls-cert", dir + "/live/server.pem", "--tls-key", dir + "/live/server.key",
                     "--tls-reload-s", "1"});
  const int port = server.http_port();
  EXPECT_NE(server.log().find("http_tls=on"), std::string::npos);

  // HTTPS for those who trust the authority; nothing for cleartext or another authority.
  EXPECT_EQ(https_get(port, "/healthz", dir + "/first/ca.pem"),
            std::make_pair(200, std::string("ok\n")));
  EXPECT_EQ(http_get(port, "/healthz").first, 0) << "a cleartext request got an HTTP answer";
  EXPECT_FALSE(trusted_by(port, dir + "/second/ca.pem"));
  EXPECT_THROW(WssClient(port, dir + "/second/ca.pem", ""), beast::system_error);

  // The gateway over WSS: a session created and streamed.
  WssClient ws(port, dir + "/first/ca.pem", "");
  v1::ClientMessage create;
  create.mutable_create_session()->set_scene_name("cantilever");
  const v1::ServerMessage created = ws.call(create);
  ASSERT_TRUE(created.has_session()) << created.error().message();
  v1::ClientMessage subscribe;
  subscribe.mutable_subscribe()->set_session_id(created.session().id());
  subscribe.mutable_subscribe()->set_max_rate_hz(30);
  ws.call(subscribe);
  const std::int64_t first_step = next_frame_step(ws);

  // Half a renewal: the new certificate beside the old key is refused by OpenSSL's pair check;
  // the old pair keeps serving.
  renew(dir + "/second", dir + "/live", "server.pem");
  EXPECT_TRUE(eventually([&] {
    trusted_by(port, dir + "/first/ca.pem");  // a connection makes the server look at the files
    return server.log().find("event=https_certificate_reload_failed") != std::string::npos;
  })) << server.log();
  EXPECT_TRUE(trusted_by(port, dir + "/first/ca.pem"));
  EXPECT_FALSE(trusted_by(port, dir + "/second/ca.pem"));

  // The whole renewal: new connections get the new certificate; the open WebSocket goes on.
  renew(dir + "/second", dir + "/live", "server.key");
  EXPECT_TRUE(eventually([&] { return trusted_by(port, dir + "/second/ca.pem"); }))
      << "the renewed certificate was not served within 10 s";
  EXPECT_FALSE(trusted_by(port, dir + "/first/ca.pem"));
  EXPECT_NE(server.log().find("event=https_certificate_reloaded"), std::string::npos);
  std::int64_t later_step = first_step;
  for (int i = 0; i < 5; ++i) later_step = next_frame_step(ws);
  EXPECT_GT(later_step, first_step) << "the WebSocket opened before the renewal stopped";

  EXPECT_EQ(server.terminate(), 0) << server.log();
  fs::remove_all(dir);
}

// A site whose ingress terminates the HTTP port's TLS gives that port its own pair (or none),
// while the gRPC port keeps --tls-cert.
TEST(Https, TheHttpPortMayHaveItsOwnPairOrNone) {
  const std::string dir =
      (fs::temp_directory_path() / ("softbody-https-pairs-" + std::to_string(getpid()))).string();
  fs::remove_all(dir);
  make_dev_certificates(dir + "/grpc");
  make_dev_certificates(dir + "/http");
  const std::vector<std::string> grpc_pair = {"--tls-cert", dir + "/grpc/server.pem", "--tls-key",
                                              dir + "/grpc/server.key"};
  auto grpc_trusts = [&](int grpc_port, const std::string& ca) {
    grpc::SslCredentialsOptions options;
    options.pem_root_certs = server::read_pem_file(ca);
    auto channel = grpc::CreateChannel("localhost:" + std::to_string(grpc_port),
                                       grpc::SslCredentials(options));
    auto stub = v1::Simulation::NewStub(channel);
    grpc::ClientContext context;
    context.set_deadline(std::chrono::system_clock::now() + std::chrono::seconds(10));
    v1::ListScenesResponse scenes;
    return stub->ListScenes(&context, {}, &scenes).ok();
  };
  {
    std::vector<std::string> flags = grpc_pair;
    flags.insert(flags.end(), {"--http-tls-cert", dir + "/http/server.pem", "--http-tls-key",
                               dir + "/http/server.key"});
    TestServer server(flags);
    EXPECT_TRUE(trusted_by(server.http_port(), dir + "/http/ca.pem"));
    EXPECT_FALSE(trusted_by(server.http_port(), dir + "/grpc/ca.pem"));
    EXPECT_TRUE(grpc_trusts(server.grpc_port(), dir + "/grpc/ca.pem"));
    EXPECT_FALSE(grpc_trusts(server.grpc_port(), dir + "/http/ca.pem"));
    EXPECT_EQ(server.terminate(), 0) << server.log();
  }
  {
    std::vector<std::string> flags = grpc_pair;
    flags.push_back("--http-plain");
    TestServer server(flags);
    EXPECT_EQ(http_get(server.http_port(), "/healthz").first, 200);
    EXPECT_NE(server.log().find("grpc_tls=on"), std::string::npos);
    EXPECT_NE(server.log().find("http_tls=off"), std::string::npos);
    EXPECT_TRUE(grpc_trusts(server.grpc_port(), dir + "/grpc/ca.pem"));
    EXPECT_EQ(server.terminate(), 0) << server.log();
  }
  fs::remove_all(dir);
}

}  // namespace
}  // namespace softbody::test
