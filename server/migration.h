// Moving a live session to another host (MigrateSession, `softbody-client migrate ID --to ADDR`):
// the session is paused here, its snapshot (state, settings, solver state) restored on the target
// under the same id, and only then removed here; its streams end with UNAVAILABLE and a
// SessionMoved detail that clients follow. If the target refuses, the session resumes here and
// nothing is lost.
#pragma once

#include "server/session_manager.h"
#include "softbody/v1/cluster.pb.h"

namespace softbody::server {

// Throws ApiError: NOT_FOUND (session), INVALID_ARGUMENT / UNAVAILABLE / the target's own refusal
// naming "target". `authorization`: the metadata value the target is asked with (the migrating
// admin's bearer token; "" without authentication). The session keeps its owner.
v1::MigrateSessionResponse migrate_session(SessionManager& sessions, const std::string& id,
                                           const std::string& target,
                                           const std::string& authorization = "");

}  // namespace softbody::server
