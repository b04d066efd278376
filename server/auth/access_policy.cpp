#include "server/auth/access_policy.h"

#include <stdexcept>

#include "server/api_error.h"

namespace softbody::server {

namespace {
int rank(Role role) {
  return role == Role::kTrainee ? 0 : role == Role::kInstructor ? 1 : 2;
}

bool reaches(const Caller& caller, const std::optional<Role>& least) {
  return least && rank(caller.role) >= rank(*least);
}
}  // namespace

SessionAudience parse_audience(const std::string& text) {
  SessionAudience audience;
  size_t start = 0;
  while (start < text.size()) {
    size_t end = text.find(',', start);
    if (end == std::string::npos) end = text.size();
    const std::string part = text.substr(start, end - start);
    start = end + 1;
    const size_t eq = part.find('=');
    const std::string key = part.substr(0, eq);
    const std::string value = eq == std::string::npos ? "" : part.substr(eq + 1);
    if (key != "watch" && key != "steer")
      throw std::invalid_argument("'" + part + "': expected watch=ROLE or steer=ROLE");
    std::optional<Role> role;
    if (value != "owner") {
      role = parse_role(value);
      if (!role)
        throw std::invalid_argument("'" + part +
                                    "': the role must be trainee, instructor, admin or owner");
    }
    (key == "watch" ? audience.watch : audience.steer) = role;
  }
  // Whoever may steer a session may watch it.
  if (audience.steer && (!audience.watch || rank(*audience.steer) < rank(*audience.watch)))
    audience.watch = audience.steer;
  return audience;
}

std::string audience_text(const SessionAudience& audience) {
  auto name = [](const std::optional<Role>& r) { return r ? role_name(*r) : "owner"; };
  return std::string("watch=") + name(audience.watch) + ",steer=" + name(audience.steer);
}

const char* use_name(SessionUse use) {
  return use == SessionUse::kWatch ? "watch" : use == SessionUse::kSteer ? "steer" : "delete";
}

bool may_use_session(const Caller& caller, const std::string& owner,
                     const SessionAudience& audience, SessionUse use) {
  if (!caller.authenticated) return true;  // development mode
  if (caller.role != Role::kTrainee || caller.subject == owner) return true;
  switch (use) {
    case SessionUse::kWatch:
      return reaches(caller, audience.watch) || reaches(caller, audience.steer);
    case SessionUse::kSteer:
      return reaches(caller, audience.steer);
    case SessionUse::kDelete:
      return false;
  }
  return false;
}

void require_session_use(const Caller& caller, const std::string& session_id,
                         const std::string& owner, const SessionAudience& audience,
                         SessionUse use) {
  if (may_use_session(caller, owner, audience, use)) return;
  if (may_use_session(caller, owner, audience, SessionUse::kWatch)) {
    throw ApiError(grpc::StatusCode::PERMISSION_DENIED,
                   "session '" + session_id + "' is open to '" + caller.subject +
                       "' (trainee) to watch, not to " + use_name(use) + " (audience " +
                       audience_text(audience) + "; that needs the instructor or admin role)");
  }
  throw ApiError(grpc::StatusCode::PERMISSION_DENIED,
                 "session '" + session_id + "' belongs to another user; '" + caller.subject +
                     "' (trainee) may use only its own sessions and those open to trainees "
                     "(joining others' needs the instructor or admin role)");
}

void require_role(const Caller& caller, Role role, const std::string& operation) {
  if (!caller.authenticated || rank(caller.role) >= rank(role)) return;
  throw ApiError(grpc::StatusCode::PERMISSION_DENIED,
                 operation + " needs the " + role_name(role) + " role; '" + caller.subject +
                     "' is " + (caller.role == Role::kInstructor ? "an " : "a ") +
                     role_name(caller.role));
}

}  // namespace softbody::server
