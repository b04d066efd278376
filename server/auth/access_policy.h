// What a caller may do with a session or the host. Every refusal is an ApiError:
// PERMISSION_DENIED naming what the caller lacks (UNAUTHENTICATED is the authenticator's).
#pragma once

#include <string>

#include "server/auth/caller.h"

namespace softbody::server {

// A session's owner is the subject of the caller that created it ("" in development mode).
// Owners see and steer their own sessions; instructors and admins everyone's.
bool may_access_session(const Caller& caller, const std::string& owner);
// Throws PERMISSION_DENIED ("session ID belongs to another user; joining it needs the
// instructor or admin role") unless may_access_session.
void require_session_access(const Caller& caller, const std::string& session_id,
                            const std::string& owner);
// Throws PERMISSION_DENIED naming the operation unless the caller has at least `role`.
void require_role(const Caller& caller, Role role, const std::string& operation);

}  // namespace softbody::server
