// The browser gateway's request/reply calls, answered by the same service code as gRPC: a
// ClientMessage carrying a unary request becomes the ServerMessage carrying its reply, or a
// GatewayError with the gRPC status code and the message naming the field at fault.
#pragma once

#include "server/api/simulation_service.h"
#include "softbody/v1/gateway.pb.h"

namespace softbody::server {

// Whether `body` is one of the unary requests (list, create, get, delete, control, settings,
// topology); streams (subscribe, tools) and pings are the connection's own business.
bool is_unary_request(v1::ClientMessage::BodyCase body);

// Runs a unary request; may take long (creating a session builds a scene): not on an I/O thread.
void run_unary_request(SimulationService& service, const Caller& caller,
                       const v1::ClientMessage& request, v1::ServerMessage& reply);

// Sets `reply` to the error for `status`.
void set_error(const grpc::Status& status, v1::ServerMessage& reply);

}  // namespace softbody::server
