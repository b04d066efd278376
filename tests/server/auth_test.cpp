// Who may do what (issue 14): bearer tokens from a token file and JWTs, roles, owners, quotas,
// and the refusals a caller sees. Unit tests of the verifiers run in-process; the policy is
// tested against a real server with a token file, over gRPC, HTTP and the WebSocket gateway.
#include <gtest/gtest.h>
#include <jwt.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <thread>

#include "server/api_error.h"
#include "server/auth/access_policy.h"
#include "server/auth/auth_command_line.h"
#include "server/auth/jwt_verifier.h"
#include "server/auth/token_file.h"
#include "tests/server/api_helpers.h"
#include "tests/server/test_server.h"
#include "tests/server/ws_client.h"

namespace softbody::test {
namespace {

namespace fs = std::filesystem;
using server::Caller;
using server::Role;

class TempDir {
 public:
  TempDir() {
    path_ = fs::temp_directory_path() /
            ("softbody-auth-" + std::to_string(::getpid()) + "-" + std::to_string(counter_++));
    fs::create_directories(path_);
  }
  ~TempDir() { fs::remove_all(path_); }
  std::string file(const std::string& name) const { return (path_ / name).string(); }

 private:
  fs::path path_;
  static inline int counter_ = 0;
};

void write_file(const std::string& path, const std::string& text) {
  std::ofstream(path) << text;
}

std::string read_file(const std::string& path) {
  std::ifstream in(path);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

// The UNAUTHENTICATED / PERMISSION_DENIED / ... message `body` throws ("" if none).
template <typename Body>
std::string api_error(Body&& body, grpc::StatusCode expected) {
  try {
    body();
  } catch (const server::ApiError& e) {
    EXPECT_EQ(e.code(), expected) << e.what();
    return e.what();
  }
  ADD_FAILURE() << "no error";
  return "";
}

// --- token file ---

std::string token_entry(const std::string& name, const std::string& role, const std::string& secret,
                        const nlohmann::json& quota = nullptr) {
  nlohmann::json e = {{"name", name}, {"role", role}, {"sha256", server::sha256_hex(secret)}};
  if (!quota.is_null()) e["quota"] = quota;
  return e.dump();
}

TEST(TokenFile, FindsHashedSecretsAndRereadsTheFileWhenItChanges) {
  TempDir dir;
  const std::string path = dir.file("tokens.json");
  write_file(path, "{\"tokens\": [" + token_entry("alice", "trainee", "s3cret-a") + "]}");
  server::TokenFile tokens(path);
  EXPECT_NE(read_file(path).find(server::sha256_hex("s3cret-a")), std::string::npos);
  EXPECT_EQ(read_file(path).find("s3cret-a"), std::string::npos);  // only the hash is stored
  auto alice = tokens.find("s3cret-a");
  ASSERT_TRUE(alice);
  EXPECT_EQ(alice->subject, "alice");
  EXPECT_EQ(alice->role, Role::kTrainee);
  EXPECT_TRUE(alice->authenticated);
  EXPECT_FALSE(tokens.find("s3cret-b"));

  // Revoke alice, add bob: the file is reread (checked at most once a second).
  std::this_thread::sleep_for(std::chrono::milliseconds(1100));
  write_file(path, "{\"tokens\": [" + token_entry("bob", "instructor", "s3cret-b") + "]}");
  fs::last_write_time(path, fs::last_write_time(path) + std::chrono::seconds(2));
  EXPECT_FALSE(tokens.find("s3cret-a"));
  ASSERT_TRUE(tokens.find("s3cret-b"));
  EXPECT_EQ(tokens.find("s3cret-b")->role, Role::kInstructor);

  // A broken edit keeps the previous tokens.
  std::this_thread::sleep_for(std::chrono::milliseconds(1100));
  write_file(path, "{\"tokens\": [{\"name\": \"x\"");
  fs::last_write_time(path, fs::last_write_time(path) + std::chrono::seconds(4));
  EXPECT_TRUE(tokens.find("s3cret-b"));
}

TEST(TokenFile, MalformedFilesNameTheEntryAndTheProblem) {
  TempDir dir;
  const std::string path = dir.file("tokens.json");
  auto error = [&](const std::string& text) {
    write_file(path, text);
    try {
      server::TokenFile tokens(path);
    } catch (const std::exception& e) {
      return std::string(e.what());
    }
    return std::string();
  };
  EXPECT_NE(error("[]").find("expected {\"tokens\": [...]}"), std::string::npos);
  const std::string hash = server::sha256_hex("x");
  EXPECT_NE(
      error("{\"tokens\": [{\"name\": \"a\", \"role\": \"boss\", \"sha256\": \"" + hash + "\"}]}")
          .find("/tokens/0/role: must be trainee, instructor or admin"),
      std::string::npos);
  EXPECT_NE(error("{\"tokens\": [{\"name\": \"a\", \"role\": \"admin\", \"sha256\": \"abc\"}]}")
                .find("/tokens/0/sha256: 64 lowercase hex digits"),
            std::string::npos);
  EXPECT_NE(error("{\"tokens\": [{\"name\": \"a\", \"role\": \"admin\", \"secret\": \"x\"}]}")
                .find("/tokens/0/secret: unknown key"),
            std::string::npos);
  EXPECT_NE(error("{\"tokens\": [" + token_entry("a", "admin", "x", {{"max_sesions", 1}}) + "]}")
                .find("/tokens/0/quota/max_sesions: unknown quota"),
            std::string::npos);
}

TEST(TokenFile, NewSecretsAreLongAndDistinct) {
  const std::string a = server::new_token_secret(), b = server::new_token_secret();
  EXPECT_EQ(a.rfind("sbt_", 0), 0u);
  EXPECT_GE(a.size(), 4u + 43u);  // 256 bits in base64url
  EXPECT_NE(a, b);
}

// --- JWTs ---

struct KeyPair {
  std::string private_pem, public_path;
};

KeyPair make_keys(const TempDir& dir, const std::string& name, const std::string& genpkey_args) {
  const std::string key = dir.file(name + ".pem"), pub = dir.file(name + ".pub");
  const std::string command = "openssl genpkey " + genpkey_args + " -out " + key +
                              " 2>/dev/null && openssl pkey -in " + key + " -pubout -out " + pub;
  EXPECT_EQ(std::system(command.c_str()), 0) << command;
  return {read_file(key), pub};
}

std::string make_jwt(jwt_alg_t alg, const std::string& key, const nlohmann::json& claims) {
  jwt_t* jwt = nullptr;
  EXPECT_EQ(jwt_new(&jwt), 0);
  EXPECT_EQ(jwt_add_grants_json(jwt, claims.dump().c_str()), 0);
  const auto* bytes = key.empty() ? nullptr : reinterpret_cast<const unsigned char*>(key.data());
  EXPECT_EQ(jwt_set_alg(jwt, alg, bytes, static_cast<int>(key.size())), 0);
  char* text = jwt_encode_str(jwt);
  std::string token = text ? text : "";
  std::free(text);
  jwt_free(jwt);
  return token;
}

long now_s() {
  return static_cast<long>(std::time(nullptr));
}

TEST(Jwt, RS256AndES256TokensNameTheCallerAndItsRole) {
  TempDir dir;
  const KeyPair rsa = make_keys(dir, "rsa", "-algorithm RSA -pkeyopt rsa_keygen_bits:2048");
  const KeyPair ec = make_keys(dir, "ec", "-algorithm EC -pkeyopt ec_paramgen_curve:P-256");
  const nlohmann::json claims = {{"sub", "carol"},       {"role", "instructor"},
                                 {"exp", now_s() + 600}, {"iss", "https://id.example.org"},
                                 {"aud", "softbody"},    {"quota", {{"max_sessions", 3}}}};
  server::JwtVerifier with_rsa({rsa.public_path, "https://id.example.org", "softbody"});
  const Caller c = with_rsa.verify(make_jwt(JWT_ALG_RS256, rsa.private_pem, claims));
  EXPECT_EQ(c.subject, "carol");
  EXPECT_EQ(c.role, Role::kInstructor);
  EXPECT_EQ(c.quota.max_sessions, 3);
  server::JwtVerifier with_ec({ec.public_path, "", ""});
  EXPECT_EQ(with_ec.verify(make_jwt(JWT_ALG_ES256, ec.private_pem, claims)).subject, "carol");
  // A token signed by another key does not verify.
  EXPECT_NE(api_error([&] { with_ec.verify(make_jwt(JWT_ALG_RS256, rsa.private_pem, claims)); },
                      grpc::StatusCode::UNAUTHENTICATED)
                .find("does not verify"),
            std::string::npos);
}

TEST(Jwt, ExpiredForgedAndIncompleteTokensAreRefusedSayingWhy) {
  TempDir dir;
  const KeyPair rsa = make_keys(dir, "rsa", "-algorithm RSA -pkeyopt rsa_keygen_bits:2048");
  server::JwtVerifier verifier({rsa.public_path, "https://id.example.org", "softbody"});
  const nlohmann::json good = {{"sub", "carol"},
                               {"role", "trainee"},
                               {"exp", now_s() + 600},
                               {"iss", "https://id.example.org"},
                               {"aud", "softbody"}};
  auto refusal = [&](const std::string& token) {
    return api_error([&] { verifier.verify(token); }, grpc::StatusCode::UNAUTHENTICATED);
  };
  auto with = [&](const std::string& key, const nlohmann::json& value) {
    nlohmann::json c = good;
    if (value.is_null())
      c.erase(key);
    else
      c[key] = value;
    return make_jwt(JWT_ALG_RS256, rsa.private_pem, c);
  };
  EXPECT_NE(refusal(with("exp", now_s() - 5)).find("expired"), std::string::npos);
  EXPECT_NE(refusal(with("exp", nullptr)).find("'exp' claim is required"), std::string::npos);
  EXPECT_NE(refusal(with("nbf", now_s() + 600)).find("not valid yet"), std::string::npos);
  EXPECT_NE(refusal(with("iss", "https://evil.example.org")).find("issuer"), std::string::npos);
  EXPECT_NE(refusal(with("aud", "other")).find("audience"), std::string::npos);
  EXPECT_NE(refusal(with("role", "root")).find("'role' claim"), std::string::npos);
  EXPECT_NE(refusal(with("sub", nullptr)).find("'sub' claim"), std::string::npos);
  // Algorithm confusion: HS256 "signed" with the public key as the HMAC secret.
  const std::string public_pem = read_file(rsa.public_path);
  EXPECT_NE(refusal(make_jwt(JWT_ALG_HS256, public_pem, good)).find("not accepted"),
            std::string::npos);
  // Unsigned.
  EXPECT_FALSE(refusal(make_jwt(JWT_ALG_NONE, "", good)).empty());
  EXPECT_FALSE(refusal("not.a.jwt").empty());
}

// --- a real server with a token file ---

class Auth : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    dir_ = new TempDir;
    tokens_path_ = dir_->file("tokens.json");
    write_file(tokens_path_, "{\"tokens\": [" + token_entry("alice", "trainee", "alice-secret") +
                                 "," +
                                 token_entry("dave", "trainee", "dave-secret",
                                             {{"max_sessions", 1},
                                              {"max_subscriptions", 1},
                                              {"max_tool_rate_hz", 20},
                                              {"max_upload_vertices", 100}}) +
                                 "," + token_entry("bob", "instructor", "bob-secret") + "," +
                                 token_entry("root", "admin", "root-secret") + "]}");
    server_ = new TestServer({"--token-file", tokens_path_});
  }
  static void TearDownTestSuite() {
    EXPECT_EQ(server_->terminate(), 0) << server_->log();
    delete server_;
    delete dir_;
  }

  // A context with the bearer token of `secret` ("" for none).
  static std::unique_ptr<grpc::ClientContext> as(const std::string& secret) {
    auto c = context();
    if (!secret.empty()) c->AddMetadata("authorization", "Bearer " + secret);
    return c;
  }
  static v1::SessionInfo create_as(const std::string& secret, const std::string& label) {
    v1::CreateSessionRequest request;
    request.set_scene_name("cantilever");
    request.set_start_paused(true);
    request.set_label(label);
    v1::SessionInfo info;
    const grpc::Status s = server_->stub()->CreateSession(as(secret).get(), request, &info);
    EXPECT_TRUE(s.ok()) << s.error_message();
    return info;
  }
  // Whether `secret`'s caller gets a frame of session `id` on a state stream.
  static bool receives_a_frame(v1::Simulation::Stub& stub, const std::string& id,
                               const std::string& secret) {
    v1::StreamStateRequest stream;
    stream.set_session_id(id);
    auto c = as(secret);
    auto reader = stub.StreamState(c.get(), stream);
    v1::StateFrame frame;
    const bool received = reader->Read(&frame);
    c->TryCancel();
    return received;
  }
  static std::vector<std::string> listed_by(const std::string& secret) {
    v1::ListSessionsResponse r;
    EXPECT_TRUE(server_->stub()->ListSessions(as(secret).get(), {}, &r).ok());
    std::vector<std::string> ids;
    for (const auto& s : r.sessions()) ids.push_back(s.id());
    return ids;
  }

  static inline TempDir* dir_ = nullptr;
  static inline std::string tokens_path_;
  static inline TestServer* server_ = nullptr;
};

bool contains(const std::vector<std::string>& ids, const std::string& id) {
  return std::find(ids.begin(), ids.end(), id) != ids.end();
}

TEST_F(Auth, CallsWithoutAValidTokenAreUnauthenticated) {
  auto stub = server_->stub();
  v1::ListSessionsResponse r;
  grpc::Status s = stub->ListSessions(as("").get(), {}, &r);
  EXPECT_EQ(s.error_code(), grpc::StatusCode::UNAUTHENTICATED);
  EXPECT_NE(s.error_message().find("requires a bearer token"), std::string::npos);
  s = stub->ListSessions(as("guessed").get(), {}, &r);
  EXPECT_EQ(s.error_code(), grpc::StatusCode::UNAUTHENTICATED);
  EXPECT_NE(s.error_message().find("unknown or revoked"), std::string::npos);
  auto c = context();
  c->AddMetadata("authorization", "Basic YWxpY2U6eA==");
  s = stub->ListSessions(c.get(), {}, &r);
  EXPECT_NE(s.error_message().find("expected 'Bearer TOKEN'"), std::string::npos);
  // Streams too.
  v1::StreamStateRequest stream;
  stream.set_session_id("any");
  auto anonymous = as("");
  auto reader = stub->StreamState(anonymous.get(), stream);
  v1::StateFrame frame;
  EXPECT_FALSE(reader->Read(&frame));
  EXPECT_EQ(reader->Finish().error_code(), grpc::StatusCode::UNAUTHENTICATED);
  // HTTP: health is open, metrics are an admin's.
  EXPECT_EQ(http_get(server_->http_port(), "/healthz").first, 200);
  const auto anonymous_metrics = http_get(server_->http_port(), "/metrics");
  EXPECT_EQ(anonymous_metrics.first, 401);
  // Said for HTTP: a header, not gRPC metadata or softbody-client's --token-file.
  EXPECT_NE(anonymous_metrics.second.find("send the HTTP header 'Authorization: Bearer TOKEN'"),
            std::string::npos)
      << anonymous_metrics.second;
  EXPECT_EQ(anonymous_metrics.second.find("metadata"), std::string::npos);
  EXPECT_EQ(http_get(server_->http_port(), "/metrics", nullptr, "Bearer alice-secret").first, 403);
  const auto metrics = http_get(server_->http_port(), "/metrics", nullptr, "Bearer root-secret");
  EXPECT_EQ(metrics.first, 200);
  EXPECT_NE(metrics.second.find("softbody_unauthenticated_total"), std::string::npos);
}

TEST_F(Auth, TraineesSeeAndSteerOnlyTheirOwnSessionsInstructorsJoinAnyone) {
  const v1::SessionInfo mine = create_as("alice-secret", "alice's");
  EXPECT_EQ(mine.owner(), "alice");
  EXPECT_TRUE(contains(listed_by("alice-secret"), mine.id()));
  EXPECT_FALSE(contains(listed_by("dave-secret"), mine.id()));  // another trainee
  EXPECT_TRUE(contains(listed_by("bob-secret"), mine.id()));    // the instructor
  EXPECT_TRUE(contains(listed_by("root-secret"), mine.id()));

  auto stub = server_->stub();
  v1::GetSessionRequest get;
  get.set_session_id(mine.id());
  v1::SessionInfo info;
  grpc::Status s = stub->GetSession(as("dave-secret").get(), get, &info);
  EXPECT_EQ(s.error_code(), grpc::StatusCode::PERMISSION_DENIED);
  EXPECT_NE(s.error_message().find("instructor or admin role"), std::string::npos);
  v1::ControlSessionRequest step;
  step.set_session_id(mine.id());
  step.set_action(v1::CONTROL_ACTION_STEP);
  EXPECT_EQ(stub->ControlSession(as("dave-secret").get(), step, &info).error_code(),
            grpc::StatusCode::PERMISSION_DENIED);
  v1::DeleteSessionRequest del;
  del.set_session_id(mine.id());
  v1::DeleteSessionResponse deleted;
  EXPECT_EQ(stub->DeleteSession(as("dave-secret").get(), del, &deleted).error_code(),
            grpc::StatusCode::PERMISSION_DENIED);
  // Another trainee's tool stream is refused at its first command.
  {
    grpc::ClientContext c;
    c.AddMetadata("authorization", "Bearer dave-secret");
    auto tool = stub->Interact(&c);
    v1::ToolCommand command;
    command.set_session_id(mine.id());
    tool->Write(command);
    tool->WritesDone();
    v1::ForceReply reply;
    EXPECT_FALSE(tool->Read(&reply));
    EXPECT_EQ(tool->Finish().error_code(), grpc::StatusCode::PERMISSION_DENIED);
  }
  // The instructor controls and watches it; the owner too.
  ASSERT_TRUE(stub->ControlSession(as("bob-secret").get(), step, &info).ok());
  EXPECT_EQ(info.last_step().step(), 1);
  ASSERT_TRUE(stub->ControlSession(as("alice-secret").get(), step, &info).ok());
  EXPECT_EQ(info.last_step().step(), 2);
  EXPECT_TRUE(receives_a_frame(*stub, mine.id(), "bob-secret"));
  // Host operations are an admin's.
  v1::ServerStatus status;
  s = stub->GetServerStatus(as("bob-secret").get(), {}, &status);
  EXPECT_EQ(s.error_code(), grpc::StatusCode::PERMISSION_DENIED);
  EXPECT_NE(s.error_message().find("needs the admin role; 'bob' is an instructor"),
            std::string::npos);
  EXPECT_TRUE(stub->GetServerStatus(as("root-secret").get(), {}, &status).ok());
  // Only an admin creates a session for someone else.
  v1::CreateSessionRequest for_other;
  for_other.set_scene_name("cantilever");
  for_other.set_owner("dave");
  EXPECT_EQ(stub->CreateSession(as("alice-secret").get(), for_other, &info).error_code(),
            grpc::StatusCode::PERMISSION_DENIED);
  ASSERT_TRUE(stub->DeleteSession(as("alice-secret").get(), del, &deleted).ok());
}

// With authentication on, the preloaded session has no owner: its audience (--preload-audience,
// by default watch=trainee,steer=instructor) lets a trainee's first page show it.
TEST_F(Auth, ThePreloadedSessionIsOpenToItsAudience) {
  for (const std::string audience : {"", "watch=owner"}) {
    std::vector<std::string> flags = {"--token-file", tokens_path_, "--preload", "cantilever"};
    if (!audience.empty()) flags.insert(flags.end(), {"--preload-audience", audience});
    TestServer server(flags);
    auto stub = server.stub();
    v1::ListSessionsResponse listed;
    ASSERT_TRUE(stub->ListSessions(as("alice-secret").get(), {}, &listed).ok());
    if (audience == "watch=owner") {
      EXPECT_EQ(listed.sessions_size(), 0);  // closed: as before, for instructors and admins only
      ASSERT_TRUE(stub->ListSessions(as("bob-secret").get(), {}, &listed).ok());
      EXPECT_EQ(listed.sessions_size(), 1);
      EXPECT_EQ(server.terminate(), 0);
      continue;
    }
    ASSERT_EQ(listed.sessions_size(), 1) << "the trainee's first page would be empty";
    const v1::SessionInfo preloaded = listed.sessions(0);
    EXPECT_EQ(preloaded.owner(), "");
    EXPECT_EQ(preloaded.audience(), "watch=trainee,steer=instructor");
    // The trainee watches it (state stream) but does not steer it.
    EXPECT_TRUE(receives_a_frame(*stub, preloaded.id(), "alice-secret"));
    v1::ControlSessionRequest pause;
    pause.set_session_id(preloaded.id());
    pause.set_action(v1::CONTROL_ACTION_PAUSE);
    v1::SessionInfo info;
    const grpc::Status refused = stub->ControlSession(as("alice-secret").get(), pause, &info);
    EXPECT_EQ(refused.error_code(), grpc::StatusCode::PERMISSION_DENIED);
    EXPECT_NE(refused.error_message().find("to watch, not to steer"), std::string::npos)
        << refused.error_message();
    v1::DeleteSessionRequest del;
    del.set_session_id(preloaded.id());
    v1::DeleteSessionResponse deleted;
    EXPECT_EQ(stub->DeleteSession(as("alice-secret").get(), del, &deleted).error_code(),
              grpc::StatusCode::PERMISSION_DENIED);
    EXPECT_TRUE(stub->ControlSession(as("bob-secret").get(), pause, &info).ok());  // instructor
    // Only an admin opens a session to others.
    v1::CreateSessionRequest opened;
    opened.set_scene_name("cantilever");
    opened.set_audience("steer=trainee");
    EXPECT_EQ(stub->CreateSession(as("alice-secret").get(), opened, &info).error_code(),
              grpc::StatusCode::PERMISSION_DENIED);
    EXPECT_EQ(server.terminate(), 0);
  }
}

TEST_F(Auth, QuotasRefuseWithResourceExhaustedNamingTheQuota) {
  auto stub = server_->stub();
  const v1::SessionInfo first = create_as("dave-secret", "dave's");
  v1::CreateSessionRequest request;
  request.set_scene_name("cantilever");
  v1::SessionInfo info;
  grpc::Status s = stub->CreateSession(as("dave-secret").get(), request, &info);
  EXPECT_EQ(s.error_code(), grpc::StatusCode::RESOURCE_EXHAUSTED);
  EXPECT_NE(s.error_message().find("quota max_sessions of 'dave'"), std::string::npos)
      << s.error_message();
  // Uploads beyond max_upload_vertices (100; the knight has 554).
  v1::CreateSessionRequest upload;
  upload.mutable_uploaded_mesh()->set_format(v1::MESH_FORMAT_TETGEN);
  upload.mutable_uploaded_mesh()->set_content(read_file(SOFTBODY_PROJECT_MESHES "/knight.node"));
  upload.mutable_uploaded_mesh()->set_tetgen_elements(
      read_file(SOFTBODY_PROJECT_MESHES "/knight.ele"));
  v1::DeleteSessionRequest del;
  del.set_session_id(first.id());
  v1::DeleteSessionResponse deleted;
  ASSERT_TRUE(stub->DeleteSession(as("dave-secret").get(), del, &deleted).ok());
  s = stub->CreateSession(as("dave-secret").get(), upload, &info);
  EXPECT_EQ(s.error_code(), grpc::StatusCode::RESOURCE_EXHAUSTED);
  EXPECT_NE(s.error_message().find("quota max_upload_vertices of 'dave'"), std::string::npos)
      << s.error_message();

  // One subscription at a time.
  const v1::SessionInfo mine = create_as("dave-secret", "dave's");
  v1::StreamStateRequest stream;
  stream.set_session_id(mine.id());
  auto held = as("dave-secret");
  auto first_stream = stub->StreamState(held.get(), stream);
  v1::StateFrame frame;
  ASSERT_TRUE(first_stream->Read(&frame));
  auto second = as("dave-secret");
  auto second_stream = stub->StreamState(second.get(), stream);
  EXPECT_FALSE(second_stream->Read(&frame));
  s = second_stream->Finish();
  EXPECT_EQ(s.error_code(), grpc::StatusCode::RESOURCE_EXHAUSTED);
  EXPECT_NE(s.error_message().find("quota max_subscriptions of 'dave'"), std::string::npos);
  held->TryCancel();
  first_stream->Finish();

  // 20 tool commands per second: a burst of 60 gets most of them rejected, naming the quota.
  {
    grpc::ClientContext c;
    c.AddMetadata("authorization", "Bearer dave-secret");
    auto tool = stub->Interact(&c);
    for (int i = 0; i < 60; ++i) {
      v1::ToolCommand command;
      command.set_session_id(mine.id());
      command.set_sequence(static_cast<std::uint64_t>(i));
      command.set_mode(v1::TOOL_MODE_IDLE);
      ASSERT_TRUE(tool->Write(command));
    }
    tool->WritesDone();
    // Every command is answered: a force reply waiting behind a write in flight may be superseded
    // by a newer reply, which then counts it (interact_reactor.cpp); rejections are never folded.
    int rejected = 0, answered = 0;
    v1::ForceReply reply;
    while (tool->Read(&reply)) {
      answered += 1 + static_cast<int>(reply.superseded());
      if (reply.rejected().find("RESOURCE_EXHAUSTED: quota max_tool_rate_hz of 'dave'") == 0)
        ++rejected;
    }
    EXPECT_TRUE(tool->Finish().ok());
    EXPECT_EQ(answered, 60);
    EXPECT_GE(rejected, 40);  // the bucket holds 5; 60 commands in far less than 2.75 s
  }
  const std::string metrics =
      http_get(server_->http_port(), "/metrics", nullptr, "Bearer root-secret").second;
  for (const char* q :
       {"max_sessions", "max_upload_vertices", "max_subscriptions", "max_tool_rate_hz"})
    EXPECT_EQ(metrics.find(std::string("softbody_quota_refusals_total{quota=\"") + q + "\"} 0"),
              std::string::npos)
        << q << " was not counted";
  EXPECT_NE(metrics.find("softbody_permission_denied_total"), std::string::npos);
}

TEST_F(Auth, TheBrowserGatewayAuthenticatesItsConnectionFirst) {
  const v1::SessionInfo alices = create_as("alice-secret", "alice's");
  WsClient ws(server_->http_port());
  v1::ClientMessage list;
  list.set_request_id(1);
  list.mutable_list_sessions();
  ws.send(list);
  auto reply = ws.receive();
  ASSERT_TRUE(reply);
  EXPECT_EQ(reply->error().code(), static_cast<int>(grpc::StatusCode::UNAUTHENTICATED));
  EXPECT_NE(reply->error().message().find("send an `authenticate` message"), std::string::npos);

  v1::ClientMessage login;
  login.set_request_id(2);
  login.mutable_authenticate()->set_token("wrong");
  ws.send(login);
  reply = ws.receive();
  ASSERT_TRUE(reply);
  EXPECT_EQ(reply->error().code(), static_cast<int>(grpc::StatusCode::UNAUTHENTICATED));

  login.set_request_id(3);
  login.mutable_authenticate()->set_token("dave-secret");
  ws.send(login);
  reply = ws.receive();
  ASSERT_TRUE(reply && reply->has_authenticated()) << (reply ? reply->DebugString() : "closed");
  EXPECT_EQ(reply->authenticated().subject(), "dave");
  EXPECT_EQ(reply->authenticated().role(), "trainee");

  list.set_request_id(4);
  ws.send(list);
  reply = ws.receive();
  ASSERT_TRUE(reply && reply->has_sessions());
  for (const auto& s : reply->sessions().sessions()) EXPECT_EQ(s.owner(), "dave");
  v1::ClientMessage subscribe;
  subscribe.set_request_id(5);
  subscribe.mutable_subscribe()->set_session_id(alices.id());
  ws.send(subscribe);
  reply = ws.receive();
  ASSERT_TRUE(reply);
  EXPECT_EQ(reply->error().code(), static_cast<int>(grpc::StatusCode::PERMISSION_DENIED));
}

TEST(AuthStartup, ListeningBeyondLoopbackWithoutAuthenticationNeedsAnExplicitFlag) {
  try {
    TestServer refused({"--grpc", "0.0.0.0:0", "--http", "0.0.0.0:0"});
    ADD_FAILURE() << "started without authentication on 0.0.0.0";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("without authentication"), std::string::npos) << e.what();
  }
  TestServer allowed({"--grpc", "0.0.0.0:0", "--http", "0.0.0.0:0", "--allow-unauthenticated"});
  EXPECT_NE(allowed.log().find("DEVELOPMENT MODE"), std::string::npos);
  EXPECT_EQ(allowed.terminate(), 0);
  TestServer local;  // loopback: development mode, said loudly
  EXPECT_NE(local.log().find("event=auth_disabled DEVELOPMENT MODE"), std::string::npos);
  EXPECT_EQ(local.terminate(), 0);
}

}  // namespace
}  // namespace softbody::test
