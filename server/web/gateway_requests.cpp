#include "server/web/gateway_requests.h"
#include "proto/status_details.h"

namespace softbody::server {

bool is_unary_request(v1::ClientMessage::BodyCase body) {
  switch (body) {
    case v1::ClientMessage::kListScenes:
    case v1::ClientMessage::kListSessions:
    case v1::ClientMessage::kCreateSession:
    case v1::ClientMessage::kGetSession:
    case v1::ClientMessage::kDeleteSession:
    case v1::ClientMessage::kControlSession:
    case v1::ClientMessage::kUpdateSettings:
    case v1::ClientMessage::kGetTopology:
      return true;
    default:
      return false;
  }
}

void set_error(const grpc::Status& status, v1::ServerMessage& reply) {
  v1::GatewayError& error = *reply.mutable_error();
  error.set_code(static_cast<int>(status.error_code()));
  error.set_message(status.error_message());
  if (auto moved = v1::moved_detail(status)) *error.mutable_moved() = *moved;
}

void run_unary_request(SimulationService& service, const Caller& caller,
                       const v1::ClientMessage& request, v1::ServerMessage& reply) {
  reply.Clear();
  reply.set_request_id(request.request_id());
  grpc::Status status;
  switch (request.body_case()) {
    case v1::ClientMessage::kListScenes:
      status = service.ListScenes(caller, &request.list_scenes(), reply.mutable_scenes());
      break;
    case v1::ClientMessage::kListSessions:
      status = service.ListSessions(caller, &request.list_sessions(), reply.mutable_sessions());
      break;
    case v1::ClientMessage::kCreateSession:
      status = service.CreateSession(caller, &request.create_session(), reply.mutable_session());
      break;
    case v1::ClientMessage::kGetSession:
      status = service.GetSession(caller, &request.get_session(), reply.mutable_session());
      break;
    case v1::ClientMessage::kDeleteSession: {
      v1::DeleteSessionResponse unused;
      status = service.DeleteSession(caller, &request.delete_session(), &unused);
      reply.mutable_done();
      break;
    }
    case v1::ClientMessage::kControlSession:
      status = service.ControlSession(caller, &request.control_session(), reply.mutable_session());
      break;
    case v1::ClientMessage::kUpdateSettings:
      status = service.UpdateSettings(caller, &request.update_settings(), reply.mutable_session());
      break;
    case v1::ClientMessage::kGetTopology:
      status = service.GetTopology(caller, &request.get_topology(), reply.mutable_topology());
      break;
    default:
      status = {grpc::StatusCode::INVALID_ARGUMENT, "body: not a request/reply call"};
  }
  if (!status.ok()) set_error(status, reply);
}

}  // namespace softbody::server
