#include "client-cpp/client/client.h"

#include <algorithm>
#include <array>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "proto/status_details.h"

namespace softbody::client {

namespace {

template <typename T>
Result<T> result(const grpc::Status& status, T value) {
  if (!status.ok()) return Error::from(status);
  return value;
}

}  // namespace

const char* status_code_name(grpc::StatusCode code) {
  switch (code) {
    case grpc::StatusCode::OK:
      return "OK";
    case grpc::StatusCode::CANCELLED:
      return "CANCELLED";
    case grpc::StatusCode::UNKNOWN:
      return "UNKNOWN";
    case grpc::StatusCode::INVALID_ARGUMENT:
      return "INVALID_ARGUMENT";
    case grpc::StatusCode::DEADLINE_EXCEEDED:
      return "DEADLINE_EXCEEDED";
    case grpc::StatusCode::NOT_FOUND:
      return "NOT_FOUND";
    case grpc::StatusCode::ALREADY_EXISTS:
      return "ALREADY_EXISTS";
    case grpc::StatusCode::PERMISSION_DENIED:
      return "PERMISSION_DENIED";
    case grpc::StatusCode::RESOURCE_EXHAUSTED:
      return "RESOURCE_EXHAUSTED";
    case grpc::StatusCode::FAILED_PRECONDITION:
      return "FAILED_PRECONDITION";
    case grpc::StatusCode::ABORTED:
      return "ABORTED";
    case grpc::StatusCode::OUT_OF_RANGE:
      return "OUT_OF_RANGE";
    case grpc::StatusCode::UNIMPLEMENTED:
      return "UNIMPLEMENTED";
    case grpc::StatusCode::INTERNAL:
      return "INTERNAL";
    case grpc::StatusCode::UNAVAILABLE:
      return "UNAVAILABLE";
    case grpc::StatusCode::DATA_LOSS:
      return "DATA_LOSS";
    case grpc::StatusCode::UNAUTHENTICATED:
      return "UNAUTHENTICATED";
    default:
      return "UNKNOWN";
  }
}

std::string Error::to_string() const {
  return std::string(status_code_name(code)) + ": " + message;
}

std::vector<float> Topology::surface_rest_positions() const {
  std::vector<float> out(3 * surface_vertex_ids.size());
  for (size_t i = 0; i < surface_vertex_ids.size(); ++i)
    for (int k = 0; k < 3; ++k)
      out[3 * i + k] = static_cast<float>(rest_positions[3 * surface_vertex_ids[i] + k]);
  return out;
}

Error Error::from(const grpc::Status& status) {
  Error e{status.error_code(), status.error_message(), {}, {}};
  // gRPC says only "Socket closed" when a plaintext client reaches a TLS port, and "wrong version
  // number" when a TLS client reaches a plaintext one: say what the likely cause is.
  if (e.code == grpc::StatusCode::UNAVAILABLE &&
      e.message.find("failed to connect") != std::string::npos) {
    if (e.message.find("Socket closed") != std::string::npos)
      e.message +=
          " (the server may speak TLS: give the authority its certificate chains to with "
          "--tls-ca PEM, ClientOptions::tls_ca_file in the library)";
    else if (e.message.find("wrong version number") != std::string::npos)
      e.message += " (the server does not seem to speak TLS: leave out --tls-ca)";
  }
  if (auto moved = v1::moved_detail(status)) {
    e.moved_reason = moved->reason();
    e.moved_to = moved->grpc_address();
  }
  return e;
}

Client::Client(ClientOptions options) : options_(std::move(options)) {
  if (options_.tls_ca_file.empty()) {
    credentials_ = grpc::InsecureChannelCredentials();
  } else {
    std::ifstream in(options_.tls_ca_file);
    std::stringstream pem;
    pem << in.rdbuf();
    if (!in || pem.str().find("-----BEGIN CERTIFICATE") == std::string::npos)
      throw std::runtime_error(options_.tls_ca_file + ": not a readable PEM certificate");
    grpc::SslCredentialsOptions ssl;
    ssl.pem_root_certs = pem.str();
    credentials_ = grpc::SslCredentials(ssl);
  }
  std::lock_guard lock(mutex_);
  connect(options_.address);
}

void Client::connect(const std::string& address) {
  grpc::ChannelArguments args;
  args.SetMaxReceiveMessageSize(options_.max_message_mb * 1024 * 1024);
  args.SetMaxSendMessageSize(options_.max_message_mb * 1024 * 1024);
  // Reconnect quickly after a server restart (the default backoff grows to 2 minutes).
  args.SetInt(GRPC_ARG_MAX_RECONNECT_BACKOFF_MS, 2000);
  address_ = address;
  channel_ = grpc::CreateCustomChannel(address, credentials_, args);
  stubs_.push_back(v1::Simulation::NewStub(channel_));
  stub_ = stubs_.back().get();
}

std::shared_ptr<grpc::Channel> Client::channel() const {
  std::lock_guard lock(mutex_);
  return channel_;
}

void ClientOptions::set_servers(const std::string& comma_separated) {
  std::stringstream list(comma_separated);
  std::string host;
  std::getline(list, host, ',');
  address = host;
  fallback_addresses.clear();
  while (std::getline(list, host, ','))
    if (!host.empty()) fallback_addresses.push_back(host);
}

v1::Simulation::Stub& Client::stub() {
  std::lock_guard lock(mutex_);
  return *stub_;
}

Client::Host Client::host() {
  std::lock_guard lock(mutex_);
  return {*stub_, address_};
}

std::string Client::address() const {
  std::lock_guard lock(mutex_);
  return address_;
}

bool Client::switch_to(const std::string& address, const std::string& why) {
  {
    std::lock_guard lock(mutex_);
    if (address.empty() || address == address_) return false;
    connect(address);
  }
  if (options_.on_switch) options_.on_switch(address, why);
  return true;
}

bool Client::follow(const Error& error, const std::string& asked_host) {
  std::string target, why;
  {
    std::lock_guard lock(mutex_);
    // Several streams of this client see the same host go away; the first to report it moves
    // the client, and the others only try again where it went (rotating once per report would
    // walk past the host that has the session).
    const bool moved_on = !asked_host.empty() && asked_host != address_;
    if (!error.moved_to.empty()) {
      target = error.moved_to;
      why = "the session moved there (" + error.moved_reason + ")";
    } else if ((error.moved_reason == "drained" || error.code == grpc::StatusCode::UNAVAILABLE) &&
               !options_.fallback_addresses.empty()) {
      if (moved_on) return true;
      // The host went away: the next address of the list (the primary one included).
      std::vector<std::string> all = {options_.address};
      all.insert(all.end(), options_.fallback_addresses.begin(), options_.fallback_addresses.end());
      const auto it = std::find(all.begin(), all.end(), address_);
      target = it == all.end() || it + 1 == all.end() ? all.front() : *(it + 1);
      why = error.moved_reason == "drained" ? "the session was drained to the snapshot store"
                                            : "the host is unavailable";
    } else {
      return false;
    }
    if (target == address_) return moved_on;
    connect(target);
  }
  if (options_.on_switch) options_.on_switch(target, why);
  return true;
}

Result<v1::MigrateSessionResponse> Client::migrate(const std::string& id,
                                                   const std::string& target) {
  v1::MigrateSessionRequest request;
  request.set_session_id(id);
  request.set_target(target);
  v1::MigrateSessionResponse response;
  auto ctx = std::make_unique<grpc::ClientContext>();
  ctx->set_deadline(std::chrono::system_clock::now() +
                    std::max(options_.deadline, std::chrono::milliseconds(60000)));
  authorize(*ctx);
  const grpc::Status status = stub().MigrateSession(ctx.get(), request, &response);
  if (!status.ok()) return Error::from(status);
  follow(Error{grpc::StatusCode::NOT_FOUND, "", "migrated", response.moved().grpc_address()});
  return response;
}

Result<v1::ServerStatus> Client::server_status() {
  v1::ServerStatus status;
  const grpc::Status s = stub().GetServerStatus(context().get(), {}, &status);
  return result(s, status);
}

std::unique_ptr<grpc::ClientContext> Client::context() const {
  auto ctx = std::make_unique<grpc::ClientContext>();
  ctx->set_deadline(std::chrono::system_clock::now() + options_.deadline);
  authorize(*ctx);
  return ctx;
}

std::string Client::authorization() const {
  return options_.bearer_token.empty() ? std::string() : "Bearer " + options_.bearer_token;
}

void Client::authorize(grpc::ClientContext& context) const {
  if (!options_.bearer_token.empty()) context.AddMetadata("authorization", authorization());
}

void ClientOptions::load_token(const std::string& path) {
  if (path.empty()) {
    if (const char* env = std::getenv("SOFTBODY_TOKEN"); env && *env) bearer_token = env;
    return;
  }
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  if (!in && !in.eof()) throw std::runtime_error(path + ": cannot read the token file");
  std::string token = text.str();
  const auto first = token.find_first_not_of(" \t\r\n");
  const auto last = token.find_last_not_of(" \t\r\n");
  if (first == std::string::npos) throw std::runtime_error(path + ": the token file is empty");
  bearer_token = token.substr(first, last - first + 1);
}

bool Client::wait_until_connected(std::chrono::milliseconds timeout) {
  return channel()->WaitForConnected(std::chrono::system_clock::now() + timeout);
}

Result<v1::ListScenesResponse> Client::scene_catalog() {
  v1::ListScenesResponse response;
  const grpc::Status status = stub().ListScenes(context().get(), {}, &response);
  return result(status, response);
}

Result<std::vector<v1::SceneEntry>> Client::list_scenes() {
  auto catalog = scene_catalog();
  if (!catalog) return catalog.error();
  return std::vector<v1::SceneEntry>(catalog->scenes().begin(), catalog->scenes().end());
}

Result<std::vector<v1::ToolMeshEntry>> Client::list_tool_meshes() {
  auto catalog = scene_catalog();
  if (!catalog) return catalog.error();
  return std::vector<v1::ToolMeshEntry>(catalog->tool_meshes().begin(),
                                        catalog->tool_meshes().end());
}

Result<v1::SessionInfo> Client::create_session(const v1::CreateSessionRequest& request) {
  v1::SessionInfo info;
  const grpc::Status status = stub().CreateSession(context().get(), request, &info);
  if (status.ok() && options_.follow_host)
    switch_to(info.host_grpc_address(), "the host that holds session " + info.id());
  return result(status, info);
}

Result<v1::SessionInfo> Client::create_session(const std::string& scene,
                                               const std::vector<std::string>& overrides,
                                               bool start_paused, const std::string& label) {
  v1::CreateSessionRequest request;
  std::error_code ec;
  if (scene.ends_with(".json") && std::filesystem::is_regular_file(scene, ec)) {
    std::ifstream in(scene);
    std::stringstream text;
    text << in.rdbuf();
    if (!in) return Error{grpc::StatusCode::INVALID_ARGUMENT, scene + ": cannot be read"};
    request.set_scene_json(text.str());
  } else {
    request.set_scene_name(scene);
  }
  for (const auto& o : overrides) request.add_overrides(o);
  request.set_start_paused(start_paused);
  request.set_label(label);
  return create_session(request);
}

Result<v1::SessionInfo> Client::get_session(const std::string& id) {
  v1::GetSessionRequest request;
  request.set_session_id(id);
  v1::SessionInfo info;
  const grpc::Status status = session_call(
      [&](v1::Simulation::Stub& stub) { return stub.GetSession(context().get(), request, &info); });
  return result(status, info);
}

Result<std::vector<v1::SessionInfo>> Client::list_sessions() {
  v1::ListSessionsResponse response;
  const grpc::Status status = stub().ListSessions(context().get(), {}, &response);
  return result(
      status, std::vector<v1::SessionInfo>(response.sessions().begin(), response.sessions().end()));
}

Result<Empty> Client::delete_session(const std::string& id) {
  v1::DeleteSessionRequest request;
  request.set_session_id(id);
  v1::DeleteSessionResponse response;
  const grpc::Status status = session_call([&](v1::Simulation::Stub& stub) {
    return stub.DeleteSession(context().get(), request, &response);
  });
  return result(status, Empty{});
}

Result<v1::SessionInfo> Client::control(const std::string& id, v1::ControlAction action,
                                        int steps) {
  v1::ControlSessionRequest request;
  request.set_session_id(id);
  request.set_action(action);
  request.set_steps(steps);
  v1::SessionInfo info;
  const grpc::Status status = session_call([&](v1::Simulation::Stub& stub) {
    return stub.ControlSession(context().get(), request, &info);
  });
  return result(status, info);
}

Result<v1::SessionInfo> Client::update_settings(const std::string& id,
                                                const v1::SessionSettings& settings) {
  v1::UpdateSettingsRequest request;
  request.set_session_id(id);
  *request.mutable_settings() = settings;
  v1::SessionInfo info;
  const grpc::Status status = session_call([&](v1::Simulation::Stub& stub) {
    return stub.UpdateSettings(context().get(), request, &info);
  });
  return result(status, info);
}

Result<v1::Snapshot> Client::snapshot(const std::string& id) {
  v1::SnapshotRequest request;
  request.set_session_id(id);
  v1::Snapshot snap;
  const grpc::Status status = session_call([&](v1::Simulation::Stub& stub) {
    return stub.SnapshotSession(context().get(), request, &snap);
  });
  return result(status, snap);
}

Result<v1::SessionInfo> Client::restore(const v1::Snapshot& snapshot, const std::string& label,
                                        bool start_paused) {
  v1::CreateSessionRequest request;
  *request.mutable_snapshot() = snapshot;
  request.set_label(label);
  request.set_start_paused(start_paused);
  return create_session(request);
}

Result<Topology> Client::topology(const std::string& id, bool include_tetrahedra) {
  v1::GetTopologyRequest request;
  request.set_session_id(id);
  request.set_include_tetrahedra(include_tetrahedra);
  v1::Topology t;
  const grpc::Status status = session_call(
      [&](v1::Simulation::Stub& stub) { return stub.GetTopology(context().get(), request, &t); });
  if (!status.ok()) return Error::from(status);
  Topology out;
  out.num_vertices = t.num_vertices();
  out.surface_vertex_ids.assign(t.surface_vertex_ids().begin(), t.surface_vertex_ids().end());
  out.triangles.assign(t.surface_triangles().begin(), t.surface_triangles().end());
  out.rest_positions.assign(t.rest_positions().begin(), t.rest_positions().end());
  out.tetrahedra.assign(t.tetrahedra().begin(), t.tetrahedra().end());
  const auto& lo = t.rest_bounds().min();
  const auto& hi = t.rest_bounds().max();
  std::copy_n(std::array{lo.x(), lo.y(), lo.z()}.begin(), 3, out.bounds_min);
  std::copy_n(std::array{hi.x(), hi.y(), hi.z()}.begin(), 3, out.bounds_max);
  return out;
}

std::unique_ptr<StateSubscription> Client::subscribe(const std::string& id,
                                                     SubscriptionOptions options,
                                                     StateSubscription::FrameHandler on_frame,
                                                     StateSubscription::EndHandler on_end) {
  return std::make_unique<StateSubscription>(*this, id, options, std::move(on_frame),
                                             std::move(on_end));
}

std::unique_ptr<ToolStream> Client::interact(const std::string& id,
                                             ToolStream::ReplyHandler on_reply,
                                             ToolStream::EndHandler on_end) {
  Host h = host();
  return std::make_unique<ToolStream>(h.stub, id, std::move(on_reply), std::move(on_end),
                                      std::move(h.address), authorization());
}

}  // namespace softbody::client
