#include "server/cluster/migration.h"

#include <grpcpp/grpcpp.h>

#include "server/api_error.h"
#include "server/cluster/session_store.h"
#include "server/logging.h"
#include "server/tls_files.h"
#include "softbody/v1/simulation_service.grpc.pb.h"

namespace softbody::server {
namespace {

std::unique_ptr<grpc::ClientContext> context_with_deadline(double seconds,
                                                           const std::string& authorization) {
  auto context = std::make_unique<grpc::ClientContext>();
  if (!authorization.empty()) context->AddMetadata("authorization", authorization);
  context->set_deadline(std::chrono::system_clock::now() +
                        std::chrono::milliseconds(static_cast<long>(seconds * 1000)));
  return context;
}

}  // namespace

PeerDialing peer_dialing(bool own_tls, const std::string& peer_ca_file) {
  if (!own_tls && peer_ca_file.empty()) return {grpc::InsecureChannelCredentials(), false};
  grpc::SslCredentialsOptions options;
  if (!peer_ca_file.empty()) options.pem_root_certs = read_pem_file(peer_ca_file);
  return {grpc::SslCredentials(options), true};
}

v1::MigrateSessionResponse migrate_session(SessionManager& sessions, const std::string& id,
                                           const std::string& target, const PeerDialing& dialing,
                                           const std::string& host,
                                           const std::string& authorization) {
  const std::shared_ptr<Session> session = sessions.find(id);
  if (target.empty()) invalid_argument("target", "is required (host:port of the receiving host)");
  if (!dialing.tls && !authorization.empty())
    spdlog::warn("event=migration_token_in_clear target={} hint={}", logfmt_value(target),
                 logfmt_value("give the hosts --tls-cert (and --peer-tls-ca) so that the "
                              "admin's token does not cross the network in clear"));
  grpc::ChannelArguments args;
  args.SetMaxSendMessageSize(-1);
  auto stub = v1::Simulation::NewStub(grpc::CreateCustomChannel(target, dialing.credentials, args));

  v1::ServerStatus status;
  const grpc::Status reached = stub->GetServerStatus(context_with_deadline(5, authorization).get(),
                                                     v1::GetServerStatusRequest{}, &status);
  if (!reached.ok())
    throw ApiError(grpc::StatusCode::UNAVAILABLE,
                   "target: cannot reach " + target + ": " + reached.error_message());
  if (!status.accepting())
    throw ApiError(grpc::StatusCode::RESOURCE_EXHAUSTED,
                   "target: " + target + " takes no sessions now: " + status.refusal());

  const bool was_running = session->running;
  session->moving = true;   // requests that would change it are refused until it has moved
  sessions.pause(session);  // from here the state is final until the target has it
  v1::SessionInfo created;
  grpc::Status made;
  try {
    const v1::CreateSessionRequest request =
        restore_request(stored_form(*session, was_running, host));
    made = stub->CreateSession(context_with_deadline(30, authorization).get(), request, &created);
  } catch (...) {
    session->moving = false;
    if (was_running) sessions.resume(session);
    throw;
  }
  if (!made.ok()) {
    session->moving = false;
    if (was_running) sessions.resume(session);
    spdlog::warn("event=migration_failed session={} target={} error={}", id, logfmt_value(target),
                 logfmt_value(made.error_message()));
    throw ApiError(made.error_code(),
                   "target: " + target + " refused the session: " + made.error_message());
  }
  v1::MigrateSessionResponse response;
  v1::SessionMoved& moved = *response.mutable_moved();
  moved.set_session_id(id);
  moved.set_grpc_address(status.grpc_address().empty() ? target : status.grpc_address());
  moved.set_http_url(status.http_url());
  moved.set_reason("migrated");
  response.set_step(created.last_step().step());
  sessions.hand_off(id, moved);
  spdlog::info("event=session_migrated session={} to={} step={}", id, logfmt_value(target),
               response.step());
  return response;
}

}  // namespace softbody::server
