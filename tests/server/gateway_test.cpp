// The browser gateway over real WebSockets (Boost.Beast client) against a real server: the same
// sessions as gRPC, state frames and tool commands, refused requests, malformed messages, size
// limits, the origin check, session deletion, static files and shutdown.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <set>
#include <thread>

#include "tests/server/api_helpers.h"
#include "tests/server/test_server.h"
#include "tests/server/ws_client.h"

namespace softbody::test {
namespace {

class Gateway : public SharedServerTest<Gateway> {
 public:
  static std::vector<std::string> server_flags() {
    return {"--max-message-mb", "1", "--allowed-origin", "http://trusted.example:5173"};
  }
};

v1::ClientMessage create_request(const std::string& scene, bool paused) {
  v1::ClientMessage m;
  m.mutable_create_session()->set_scene_name(scene);
  m.mutable_create_session()->set_start_paused(paused);
  m.mutable_create_session()->set_label("from the browser");
  return m;
}

v1::ClientMessage subscribe_request(const std::string& id, double rate_hz) {
  v1::ClientMessage m;
  m.mutable_subscribe()->set_session_id(id);
  m.mutable_subscribe()->set_max_rate_hz(rate_hz);
  return m;
}

// The next state frame on the connection (replies in between are skipped).
v1::StateFrame next_frame(WsClient& ws) {
  for (;;) {
    auto m = ws.receive();
    if (!m) throw std::runtime_error("connection ended: " + ws.error().message());
    if (m->has_frame()) return m->frame();
  }
}

TEST_F(Gateway, SessionsAreSharedWithGrpcBothWays) {
  WsClient ws(server_->http_port());
  const v1::ServerMessage created = ws.call(create_request("default", true));
  ASSERT_TRUE(created.has_session()) << created.error().message();
  const std::string browser_id = created.session().id();
  EXPECT_EQ(created.session().label(), "from the browser");

  auto stub = server_->stub();
  EXPECT_EQ(get_session(*stub, browser_id).label(), "from the browser");
  const v1::SessionInfo grpc_session = create_session(*stub, "cantilever", true);

  v1::ClientMessage list;
  list.mutable_list_sessions();
  const v1::ServerMessage listed = ws.call(list);
  ASSERT_TRUE(listed.has_sessions());
  std::set<std::string> ids;
  for (const auto& s : listed.sessions().sessions()) ids.insert(s.id());
  EXPECT_TRUE(ids.count(browser_id));
  EXPECT_TRUE(ids.count(grpc_session.id()));

  v1::ClientMessage scenes;
  scenes.mutable_list_scenes();
  const v1::ServerMessage scene_list = ws.call(scenes);
  ASSERT_TRUE(scene_list.has_scenes());
  EXPECT_GE(scene_list.scenes().scenes_size(), 3);
}

TEST_F(Gateway, RefusedRequestsNameTheFieldAndKeepTheConnection) {
  WsClient ws(server_->http_port());
  const std::string id = ws.call(create_request("default", true)).session().id();
  v1::ClientMessage bad;
  bad.mutable_update_settings()->set_session_id(id);
  bad.mutable_update_settings()->mutable_settings()->set_dt(5);
  const v1::ServerMessage refused = ws.call(bad);
  ASSERT_TRUE(refused.has_error());
  EXPECT_EQ(refused.error().code(), static_cast<int>(grpc::StatusCode::INVALID_ARGUMENT));
  EXPECT_NE(refused.error().message().find("settings.dt"), std::string::npos)
      << refused.error().message();

  v1::ClientMessage missing;
  missing.mutable_get_session()->set_session_id("no-such-session");
  EXPECT_EQ(ws.call(missing).error().code(), static_cast<int>(grpc::StatusCode::NOT_FOUND));

  v1::ClientMessage ping;
  ping.mutable_ping()->set_client_time_s(42.5);
  const v1::ServerMessage pong = ws.call(ping);
  ASSERT_TRUE(pong.has_pong());
  EXPECT_EQ(pong.pong().client_time_s(), 42.5);
}

TEST_F(Gateway, FramesDecodeAndAGrabToolMovesTheBody) {
  WsClient ws(server_->http_port());
  const std::string id = ws.call(create_request("default", false)).session().id();
  v1::ClientMessage topology;
  topology.mutable_get_topology()->set_session_id(id);
  const v1::Topology topo = ws.call(topology).topology();
  ASSERT_GT(topo.surface_vertex_ids_size(), 0);

  const v1::ServerMessage subscribed = ws.call(subscribe_request(id, 30));
  ASSERT_TRUE(subscribed.has_session()) << subscribed.error().message();
  codec::FrameDecoder decoder;
  std::vector<double> before;
  for (int i = 0; i < 5; ++i) before = decode_frame(decoder, next_frame(ws));
  ASSERT_EQ(before.size(), 3u * static_cast<size_t>(topo.surface_vertex_ids_size()));

  // Grab the highest surface vertex and pull it up 3 cm for a second, at display rate.
  size_t top = 0;
  for (size_t i = 0; i < before.size() / 3; ++i)
    if (before[3 * i + 1] > before[3 * top + 1]) top = i;
  v1::ClientMessage tool;
  v1::ToolCommand& c = *tool.mutable_tool_command();
  c.set_session_id(id);
  c.set_mode(v1::TOOL_MODE_GRAB);
  c.set_grab_vertex(static_cast<int>(topo.surface_vertex_ids(static_cast<int>(top))));
  c.set_grab_stiffness(400);
  c.mutable_pose()->mutable_position()->set_x(before[3 * top]);
  c.mutable_pose()->mutable_position()->set_y(before[3 * top + 1] + 0.03);
  c.mutable_pose()->mutable_position()->set_z(before[3 * top + 2]);
  double largest_force = 0;
  int replies = 0;
  std::vector<double> after;
  const auto end = std::chrono::steady_clock::now() + std::chrono::milliseconds(1500);
  for (std::uint64_t sequence = 1; std::chrono::steady_clock::now() < end; ++sequence) {
    c.set_sequence(sequence);
    ws.send(tool);
    // Read what arrived: force replies and frames.
    auto m = ws.receive();
    ASSERT_TRUE(m) << ws.error().message();
    if (m->has_force()) {
      ++replies;
      EXPECT_TRUE(m->force().rejected().empty()) << m->force().rejected();
      largest_force = std::max(largest_force, std::abs(m->force().force().y()));
    } else if (m->has_frame()) {
      after = decode_frame(decoder, m->frame());
    } else {
      ASSERT_FALSE(m->has_error()) << m->error().message();
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(16));
  }
  EXPECT_GT(replies, 10);
  EXPECT_GT(largest_force, 0.1);  // 400 N/m over several mm
  after = decode_frame(decoder, next_frame(ws));
  EXPECT_GT(after[3 * top + 1] - before[3 * top + 1], 0.005) << "the grabbed vertex rose";
}

// A browser that stops reading while its tool keeps sending (a stalled tab, a slow link): the
// gateway keeps one force reply waiting, the newest, and counts in `superseded` what it replaced,
// but never replaces a rejection, and a step's contact problem moves on to the newer reply. Read
// afterwards: the replies come in command order, every command is answered or superseded, the
// rejection and the step's problem are among them. The tool presses 2 mm into the beam, so each
// reply carries a force model (~150 bytes): 300,000 of them (~45 MB) are more than any machine's
// socket buffers hold, and superseding must happen.
TEST_F(Gateway, RepliesBehindAStalledReaderAreSupersededExceptRejections) {
  WsClient ws(server_->http_port());
  const v1::SessionInfo s = ws.call(create_request("cantilever", true)).session();
  v1::ClientMessage tool;
  v1::ToolCommand& c = *tool.mutable_tool_command();
  c.set_session_id(s.id());
  c.set_mode(v1::TOOL_MODE_POKE);
  c.set_contact_model(v1::CONTACT_MODEL_CONSTRAINT);
  c.set_radius(0.01);
  c.mutable_pose()->mutable_position()->set_x(0.105);
  c.mutable_pose()->mutable_position()->set_y(s.rest_bounds().max().y() + 0.01 - 0.002);
  c.mutable_pose()->mutable_position()->set_z(0.025);
  v1::ClientMessage step;
  step.set_request_id(1000);
  step.mutable_control_session()->set_session_id(s.id());
  step.mutable_control_session()->set_action(v1::CONTROL_ACTION_STEP);
  step.mutable_control_session()->set_steps(1);
  constexpr std::uint64_t kCommands = 300000, kRejected = 150000;
  for (std::uint64_t sequence = 1; sequence <= kCommands; ++sequence) {
    c.set_sequence(sequence);
    c.set_friction_coefficient(sequence == kRejected ? -1 : 0.3);
    ws.send(tool);
    if (sequence == 10) ws.send(step);  // nothing is read meanwhile
  }
  std::uint64_t last = 0, accounted = 0, replies = 0;
  std::int64_t last_problem_step = -1;
  bool rejection_seen = false;
  while (last < kCommands) {
    auto m = ws.receive();
    ASSERT_TRUE(m) << ws.error().message();
    ASSERT_FALSE(m->has_error()) << m->error().message();
    if (!m->has_force()) continue;
    const v1::ForceReply& r = m->force();
    ASSERT_GT(r.sequence(), last) << "replies out of order";
    last = r.sequence();
    ++replies;
    accounted += 1 + r.superseded();
    if (r.has_contact_problem()) last_problem_step = r.contact_problem().step();
    if (!r.rejected().empty()) {
      EXPECT_EQ(r.sequence(), kRejected);
      EXPECT_EQ(r.rejected(), "friction_coefficient: must lie in [0, 10]");
      rejection_seen = true;
    }
  }
  EXPECT_TRUE(rejection_seen);
  EXPECT_EQ(accounted, kCommands);
  EXPECT_GE(last_problem_step, 1);  // the one step's problem got through
  EXPECT_LT(replies, kCommands);
}

TEST_F(Gateway, MalformedMessageClosesOnlyThatConnection) {
  WsClient good(server_->http_port());
  const std::string id = good.call(create_request("default", false)).session().id();
  ASSERT_TRUE(good.call(subscribe_request(id, 20)).has_session());
  next_frame(good);

  WsClient garbage(server_->http_port());
  garbage.send_raw(std::string("\xff\xff\xff\xff not protobuf", 17), true);
  EXPECT_FALSE(garbage.receive());
  EXPECT_EQ(garbage.close_reason().code, websocket::close_code::bad_payload);
  EXPECT_NE(std::string(garbage.close_reason().reason.c_str()).find("malformed"),
            std::string::npos);

  WsClient text(server_->http_port());
  text.send_raw("{\"list_sessions\": {}}", false);
  EXPECT_FALSE(text.receive());
  EXPECT_EQ(text.close_reason().code, websocket::close_code::unknown_data);

  WsClient empty(server_->http_port());
  v1::ClientMessage nobody;
  nobody.set_request_id(7);
  empty.send(nobody);
  EXPECT_FALSE(empty.receive());
  EXPECT_EQ(empty.close_reason().code, websocket::close_code::bad_payload);

  WsClient huge(server_->http_port());  // --max-message-mb 1
  huge.send_raw(std::string(2 * 1024 * 1024, 'x'), true);
  EXPECT_FALSE(huge.receive());
  EXPECT_EQ(huge.close_reason().code, websocket::close_code::too_big);

  // The good connection and its session went on.
  for (int i = 0; i < 3; ++i) EXPECT_GT(next_frame(good).stats().step(), 0);
  EXPECT_NE(http_get(server_->http_port(), "/metrics")
                .second.find("softbody_websocket_closed_malformed_total 3"),
            std::string::npos);
}

TEST_F(Gateway, ForeignOriginsAreRefused) {
  const int port = server_->http_port();
  const auto [foreign, reason] = WsClient::try_upgrade(port, "http://evil.example");
  EXPECT_EQ(foreign, 403);
  EXPECT_NE(reason.find("--allowed-origin"), std::string::npos) << reason;
  EXPECT_EQ(WsClient::try_upgrade(port, "http://127.0.0.1:" + std::to_string(port)).first, 101);
  EXPECT_EQ(WsClient::try_upgrade(port, "http://trusted.example:5173").first, 101);
  EXPECT_EQ(WsClient::try_upgrade(port, "").first, 101);  // not a browser
}

TEST_F(Gateway, DeletingTheSessionEndsItsStreams) {
  WsClient ws(server_->http_port());
  const std::string id = ws.call(create_request("default", false)).session().id();
  ASSERT_TRUE(ws.call(subscribe_request(id, 10)).has_session());
  next_frame(ws);
  auto stub = server_->stub();
  v1::DeleteSessionRequest request;
  request.set_session_id(id);
  v1::DeleteSessionResponse response;
  ASSERT_TRUE(stub->DeleteSession(context().get(), request, &response).ok());
  for (;;) {
    auto m = ws.receive();
    ASSERT_TRUE(m) << "the connection itself stays open";
    if (!m->has_stream_ended()) continue;
    EXPECT_EQ(m->stream_ended().stream(), v1::StreamEnded::STREAM_STATE);
    EXPECT_EQ(m->stream_ended().code(), static_cast<int>(grpc::StatusCode::CANCELLED));
    EXPECT_EQ(m->stream_ended().session_id(), id);
    break;
  }
  v1::ClientMessage ping;
  ping.mutable_ping();
  EXPECT_TRUE(ws.call(ping).has_pong());
}

// Static files and shutdown need servers of their own.
TEST(GatewayServer, ServesTheWebClientWithIsolationHeaders) {
  const std::filesystem::path root =
      std::filesystem::temp_directory_path() / ("softbody-web-" + std::to_string(getpid()));
  std::filesystem::create_directories(root / "assets");
  std::ofstream(root / "index.html") << "<!doctype html><title>softbody</title>";
  std::ofstream(root / "assets" / "app-1234.js") << "console.log(1)";
  std::ofstream(root.parent_path() / "secret.txt") << "secret";
  TestServer server({"--web-root", root.string()});
  std::string headers;
  const auto [status, body] = http_get(server.http_port(), "/", &headers);
  EXPECT_EQ(status, 200);
  EXPECT_NE(body.find("<title>softbody</title>"), std::string::npos);
  EXPECT_NE(headers.find("Cross-Origin-Opener-Policy: same-origin"), std::string::npos) << headers;
  EXPECT_NE(headers.find("Cross-Origin-Embedder-Policy: require-corp"), std::string::npos);
  EXPECT_NE(headers.find("Content-Type: text/html"), std::string::npos);
  const auto [js_status, js] = http_get(server.http_port(), "/assets/app-1234.js", &headers);
  EXPECT_EQ(js_status, 200);
  EXPECT_NE(headers.find("text/javascript"), std::string::npos);
  EXPECT_NE(headers.find("immutable"), std::string::npos);
  EXPECT_EQ(http_get(server.http_port(), "/missing.js").first, 404);
  EXPECT_NE(http_get(server.http_port(), "/../secret.txt").first, 200);
  EXPECT_NE(http_get(server.http_port(), "/assets/../../secret.txt").first, 200);
  EXPECT_EQ(http_get(server.http_port(), "/healthz").first, 200);  // routes come first
  EXPECT_EQ(server.terminate(), 0);
  std::filesystem::remove_all(root);
  std::filesystem::remove(root.parent_path() / "secret.txt");
}

TEST(GatewayServer, ShutdownClosesBrowserConnectionsWithGoingAway) {
  TestServer server;
  WsClient ws(server.http_port());
  const std::string id = ws.call(create_request("default", false)).session().id();
  ASSERT_TRUE(ws.call(subscribe_request(id, 20)).has_session());
  next_frame(ws);
  std::thread stop([&] { EXPECT_EQ(server.terminate(), 0); });
  bool state_ended = false;
  while (auto m = ws.receive()) {
    if (m->has_stream_ended()) {
      state_ended = true;
      EXPECT_EQ(m->stream_ended().code(), static_cast<int>(grpc::StatusCode::UNAVAILABLE));
    }
  }
  stop.join();
  EXPECT_TRUE(state_ended);
  EXPECT_EQ(ws.close_reason().code, websocket::close_code::going_away);
}

}  // namespace
}  // namespace softbody::test
