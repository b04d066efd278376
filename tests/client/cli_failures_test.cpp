// softbody-client must not hide a failure: `watch` and `haptic` against an unreachable server,
// over the server's --max-subscribers / --max-tools, or when the server shuts down, print
// `softbody-client: STATUS: message` and exit 1 (docs/client-cpp.md), instead of printing empty
// statistics and exiting 0.
#include <gtest/gtest.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <future>
#include <nlohmann/json.hpp>
#include <thread>

#include "tests/client/client_test_support.h"
#include "tests/process.h"

namespace softbody::client {
namespace {

using test::ProcessResult;
using test::run_process;

class CliFailures : public ::testing::Test {
 protected:
  void SetUp() override {
    server_ = std::make_unique<test::TestServer>(
        std::vector<std::string>{"--max-subscribers", "1", "--max-tools", "1"});
    client_ = std::make_unique<Client>(testing::options_for(*server_));
    auto created = client_->create_session("cantilever");
    ASSERT_TRUE(created) << created.error().to_string();
    id_ = created->id();
  }

  ProcessResult cli(const std::string& args) const {
    return run_process(std::string(SOFTBODY_CLIENT) +
                       " --server 127.0.0.1:" + std::to_string(server_->grpc_port()) + " " + args);
  }

  // Waits until the session has this many subscribers and tools (what the commands opened).
  void wait_for_streams(int subscribers, int tools) const {
    EXPECT_TRUE(
        testing::session_has_streams(*client_, id_, subscribers, tools, std::chrono::seconds(30)));
  }

  std::unique_ptr<server::ServerProcess> server_;
  std::unique_ptr<Client> client_;
  std::string id_;
};

TEST_F(CliFailures, WatchAndHapticAgainstAnUnreachableServerFailLoudly) {
  const std::string nowhere = std::string(SOFTBODY_CLIENT) + " --server 127.0.0.1:1 --deadline 2 ";
  for (const std::string command : {"watch abc --duration 2", "haptic abc --duration 2"}) {
    auto r = run_process(nowhere + command);
    EXPECT_EQ(r.exit_code, 1) << command << ": " << r.err;
    EXPECT_NE(r.err.find("softbody-client: UNAVAILABLE: "), std::string::npos) << r.err;
  }
  auto missing = cli("watch nosuchsession --duration 2");
  EXPECT_EQ(missing.exit_code, 1);
  EXPECT_NE(missing.err.find("softbody-client: NOT_FOUND: "), std::string::npos) << missing.err;
}

// `haptic --tool-mesh NAME` holds a tool surface the server offers; an unknown name is refused
// before the loop starts, naming the ones there are.
TEST_F(CliFailures, HapticWithAToolSurfaceTheServerDoesNotOfferNamesTheOnesItDoes) {
  auto unknown = cli("haptic " + id_ + " --tool-mesh scalpel --duration 2 --cpu -2");
  EXPECT_EQ(unknown.exit_code, 1) << unknown.err;
  EXPECT_NE(unknown.err.find("softbody-client: INVALID_ARGUMENT: --tool-mesh: the server offers "
                             "no tool surface 'scalpel' (available: blade)"),
            std::string::npos)
      << unknown.err;
  auto listed = cli("list");
  EXPECT_EQ(listed.exit_code, 0) << listed.err;
  EXPECT_NE(listed.out.find("tool surfaces (haptic --tool-mesh NAME):\n  blade  A blunt blade"),
            std::string::npos)
      << listed.out;
}

TEST_F(CliFailures, WatchAndHapticOverTheServersLimitsNameTheLimit) {
  // The one subscriber and the one tool the server allows per session.
  auto subscription = client_->subscribe(id_, {}, [](const DecodedFrame&) {});
  auto tool =
      client_->interact(id_, [](const v1::ForceReply&, std::chrono::steady_clock::time_point) {});
  v1::ToolCommand idle;
  idle.set_mode(v1::TOOL_MODE_IDLE);
  ASSERT_TRUE(tool->send(idle));
  wait_for_streams(1, 1);

  auto watched = cli("watch " + id_ + " --duration 5");
  EXPECT_EQ(watched.exit_code, 1) << watched.err;
  EXPECT_NE(watched.err.find("softbody-client: RESOURCE_EXHAUSTED: "), std::string::npos)
      << watched.err;
  EXPECT_NE(watched.err.find("maximum of 1 subscribers"), std::string::npos) << watched.err;

  auto steered = cli("haptic " + id_ + " --duration 5 --cpu -2");
  EXPECT_EQ(steered.exit_code, 1) << steered.err;
  EXPECT_NE(steered.err.find("softbody-client: RESOURCE_EXHAUSTED: "), std::string::npos)
      << steered.err;
  EXPECT_NE(steered.err.find("maximum of 1 tools"), std::string::npos) << steered.err;
}

TEST_F(CliFailures, WatchAndHapticSayTheServerShutDown) {
  auto watching =
      std::async(std::launch::async, [&] { return cli("watch " + id_ + " --reconnect-for 1"); });
  auto steering = std::async(std::launch::async,
                             [&] { return cli("haptic " + id_ + " --reconnect-for 1 --cpu -2"); });
  wait_for_streams(1, 1);
  EXPECT_EQ(server_->terminate(), 0);
  for (auto* running : {&watching, &steering}) {
    ASSERT_EQ(running->wait_for(std::chrono::seconds(60)), std::future_status::ready);
    const ProcessResult r = running->get();
    EXPECT_EQ(r.exit_code, 1) << r.err;
    EXPECT_NE(r.err.find("softbody-client: UNAVAILABLE: the server is shutting down"),
              std::string::npos)
        << r.err;
  }
}

}  // namespace
}  // namespace softbody::client

namespace softbody::client {
namespace {

// Usage errors exit 1 as docs/client-cpp.md says (CLI11's own codes were 105-109), and a missing
// or mistyped command names the valid ones (it said only "A subcommand is required").
TEST(CliUsage, UsageErrorsExit1AndNameTheCommands) {
  const std::string cli = std::string(SOFTBODY_CLIENT) + " ";
  const std::string commands =
      "(commands: list, create, delete, control, watch, haptic, record, migrate, status)";
  auto bogus = test::run_process(cli + "--server 127.0.0.1:1 --follow-host bogus --json");
  EXPECT_EQ(bogus.exit_code, 1);
  EXPECT_NE(bogus.err.find("softbody-client: unknown command 'bogus' " + commands),
            std::string::npos)
      << bogus.err;
  auto none = test::run_process(cli + "--server 127.0.0.1:1");
  EXPECT_EQ(none.exit_code, 1);
  EXPECT_NE(none.err.find("softbody-client: a command is required (list, create, delete"),
            std::string::npos)
      << none.err;
  for (const std::string wrong : {"list --nope", "control abc fly", "watch", "create --paused x y",
                                  "--deadline 0 list", "haptic abc --rate 5"}) {
    auto r = test::run_process(cli + wrong);
    EXPECT_EQ(r.exit_code, 1) << wrong << ": " << r.err;
    EXPECT_EQ(r.err.rfind("softbody-client: ", 0), 0u) << wrong << ": " << r.err;
    EXPECT_NE(r.err.find("Run with --help for more information."), std::string::npos) << r.err;
  }
  auto help = test::run_process(cli + "haptic --help");
  EXPECT_EQ(help.exit_code, 0);
  EXPECT_NE(help.out.find("--device"), std::string::npos);
  auto load = test::run_process(std::string(SOFTBODY_LOAD) + " --sessions 0");
  EXPECT_EQ(load.exit_code, 1) << load.err;
  EXPECT_EQ(load.err.rfind("softbody-load: --sessions", 0), 0u) << load.err;
}

// The tools against a server that requires tokens: `softbody-server --new-token` makes one, the
// tools send it from --token-file or SOFTBODY_TOKEN, and without it say UNAUTHENTICATED.
TEST(CliAuth, ToolsSendTheTokenFromAFileOrTheEnvironment) {
  const std::string dir = testing::temp_path("auth");
  std::filesystem::create_directories(dir);
  auto made = test::run_process(std::string(SOFTBODY_SERVER) + " --new-token alice:trainee");
  ASSERT_EQ(made.exit_code, 0) << made.err;
  const auto newline = made.out.find('\n');
  const std::string secret = made.out.substr(0, newline);
  const std::string entry =
      made.out.substr(newline + 1, made.out.find('\n', newline + 1) - newline - 1);
  EXPECT_EQ(entry.find(secret), std::string::npos);  // the entry holds only the hash
  std::ofstream(dir + "/tokens.json") << "{\"tokens\": [" << entry << "]}";
  std::ofstream(dir + "/alice.token") << secret << "\n";
  test::TestServer server({"--token-file", dir + "/tokens.json"});
  const std::string cli = std::string(SOFTBODY_CLIENT) +
                          " --server 127.0.0.1:" + std::to_string(server.grpc_port()) + " ";
  auto refused = test::run_process(cli + "list");
  EXPECT_EQ(refused.exit_code, 1);
  EXPECT_NE(refused.err.find("softbody-client: UNAUTHENTICATED: "), std::string::npos)
      << refused.err;
  auto created = test::run_process(cli + "--token-file " + dir +
                                   "/alice.token create --scene "
                                   "cantilever --paused --json");
  ASSERT_EQ(created.exit_code, 0) << created.err;
  EXPECT_NE(created.out.find("\"owner\": \"alice\""), std::string::npos) << created.out;
  auto listed = test::run_process("SOFTBODY_TOKEN=" + secret + " " + cli + "list --json");
  ASSERT_EQ(listed.exit_code, 0) << listed.err;
  EXPECT_NE(listed.out.find("\"owner\": \"alice\""), std::string::npos);
  auto load = test::run_process(std::string(SOFTBODY_LOAD) + " --server 127.0.0.1:" +
                                std::to_string(server.grpc_port()) + " --token-file " + dir +
                                "/alice.token --scene cantilever --duration 1 --warmup 0.2 "
                                "--rate 200 --json --max-errors 0");
  EXPECT_EQ(load.exit_code, 0) << load.out << load.err;
  auto missing = test::run_process(cli + "--token-file " + dir + "/nope list");
  EXPECT_EQ(missing.exit_code, 1);
  EXPECT_NE(missing.err.find("nope: cannot read the token file"), std::string::npos) << missing.err;
  EXPECT_EQ(server.terminate(), 0);
  std::filesystem::remove_all(dir);
}

// A token whose quota allows 20 tool commands per second: `haptic` at 1 kHz is mostly refused.
// It says so as soon as it happens, stops, shows the count in its statistics and exits 1 naming
// the quota (it printed "replies: 1990 of 1990" and exited 0).
TEST(CliAuth, HapticOverTheToolRateQuotaSaysSoAndFails) {
  const std::string dir = testing::temp_path("quota");
  std::filesystem::create_directories(dir);
  auto made = test::run_process(std::string(SOFTBODY_SERVER) + " --new-token dave:trainee");
  ASSERT_EQ(made.exit_code, 0) << made.err;
  const auto newline = made.out.find('\n');
  nlohmann::json entry = nlohmann::json::parse(
      made.out.substr(newline + 1, made.out.find('\n', newline + 1) - newline - 1));
  entry["quota"] = {{"max_tool_rate_hz", 20}};
  std::ofstream(dir + "/tokens.json")
      << nlohmann::json{{"tokens", nlohmann::json::array({entry})}}.dump();
  std::ofstream(dir + "/dave.token") << made.out.substr(0, newline) << "\n";
  test::TestServer server({"--token-file", dir + "/tokens.json"});
  const std::string cli = std::string(SOFTBODY_CLIENT) +
                          " --server 127.0.0.1:" + std::to_string(server.grpc_port()) +
                          " --token-file " + dir + "/dave.token ";
  auto created = test::run_process(cli + "create --scene cantilever");
  ASSERT_EQ(created.exit_code, 0) << created.err;
  const std::string id = created.out.substr(0, created.out.find('\n'));

  const auto start = std::chrono::steady_clock::now();
  auto steered = test::run_process(cli + "haptic " + id + " --duration 20 --cpu -2");
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  EXPECT_EQ(steered.exit_code, 1) << steered.out << steered.err;
  EXPECT_NE(steered.err.find("softbody-client: the server rejects tool commands: "
                             "RESOURCE_EXHAUSTED: quota max_tool_rate_hz of 'dave'"),
            std::string::npos)
      << steered.err;
  EXPECT_NE(steered.err.find("tool commands rejected; the run stopped there)"), std::string::npos)
      << steered.err;
  EXPECT_NE(steered.out.find("rejected by the server: "), std::string::npos) << steered.out;
  EXPECT_EQ(steered.out.find("rejected by the server: 0 of"), std::string::npos) << steered.out;
  EXPECT_LT(seconds, 15) << "stops at the quota, not after --duration";

  // --json carries the count and the server's reason.
  auto json = test::run_process(cli + "haptic " + id + " --duration 20 --cpu -2 --json");
  EXPECT_EQ(json.exit_code, 1) << json.err;
  const auto report = nlohmann::json::parse(json.out, nullptr, false);
  ASSERT_TRUE(report.is_object()) << json.out;
  EXPECT_GT(report["commands_rejected"].get<long>(), 0);
  EXPECT_EQ(report["first_rejection"].get<std::string>().rfind(
                "RESOURCE_EXHAUSTED: quota max_tool_rate_hz of 'dave'", 0),
            0u)
      << report.dump(2);
  EXPECT_EQ(server.terminate(), 0);
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace softbody::client
