// What a caller may do with a session or the host. Every refusal is an ApiError:
// PERMISSION_DENIED naming what the caller lacks (UNAUTHENTICATED is the authenticator's).
#pragma once

#include <optional>
#include <string>

#include "server/auth/caller.h"

namespace softbody::server {

// Who besides a session's owner may use it (instructors and admins reach every session anyway):
// the least role that may watch it and the least that may steer it. Unset: the owner only. The
// operator gives the preloaded session one (--preload-audience), so that a trainee's first page
// shows it; a session carries its audience into snapshots' stores and migrations.
struct SessionAudience {
  std::optional<Role> watch;  // get, list, topology, state stream, snapshot
  std::optional<Role> steer;  // tools, control, settings (implies watch)
  bool operator==(const SessionAudience&) const = default;
};

// "watch=ROLE,steer=ROLE" (either part may be left out; "" or "owner" for none);
// std::invalid_argument naming the part at fault.
SessionAudience parse_audience(const std::string& text);
std::string audience_text(const SessionAudience& audience);  // as parse_audience reads it

enum class SessionUse { kWatch, kSteer, kDelete };
const char* use_name(SessionUse use);  // "watch", "steer", "delete"

// A session's owner is the subject of the caller that created it ("" in development mode).
// Owners see, steer and delete their own sessions; instructors and admins everyone's; others
// what the session's audience allows.
bool may_use_session(const Caller& caller, const std::string& owner,
                     const SessionAudience& audience, SessionUse use);
// Throws PERMISSION_DENIED ("session ID belongs to another user; ...") unless may_use_session.
void require_session_use(const Caller& caller, const std::string& session_id,
                         const std::string& owner, const SessionAudience& audience, SessionUse use);
// Throws PERMISSION_DENIED naming the operation unless the caller has at least `role`.
void require_role(const Caller& caller, Role role, const std::string& operation);

}  // namespace softbody::server
