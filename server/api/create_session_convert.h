// CreateSessionRequest to the server's NewSession, checking what the message alone can tell
// (INVALID_ARGUMENT naming the field: "label: longer than 256 characters").
#pragma once

#include "server/sessions/new_session.h"
#include "softbody/v1/session.pb.h"

namespace softbody::server {

NewSession new_session_from_proto(const v1::CreateSessionRequest& request);

}  // namespace softbody::server
