#include "server/auth/access_policy.h"

#include "server/api_error.h"

namespace softbody::server {

namespace {
int rank(Role role) {
  return role == Role::kTrainee ? 0 : role == Role::kInstructor ? 1 : 2;
}
}  // namespace

bool may_access_session(const Caller& caller, const std::string& owner) {
  if (!caller.authenticated) return true;  // development mode
  return caller.role != Role::kTrainee || caller.subject == owner;
}

void require_session_access(const Caller& caller, const std::string& session_id,
                            const std::string& owner) {
  if (may_access_session(caller, owner)) return;
  throw ApiError(grpc::StatusCode::PERMISSION_DENIED,
                 "session '" + session_id + "' belongs to another user; '" + caller.subject +
                     "' (trainee) may use only its own sessions (joining others' needs the "
                     "instructor or admin role)");
}

void require_role(const Caller& caller, Role role, const std::string& operation) {
  if (!caller.authenticated || rank(caller.role) >= rank(role)) return;
  throw ApiError(grpc::StatusCode::PERMISSION_DENIED,
                 operation + " needs the " + role_name(role) + " role; '" + caller.subject +
                     "' is " + (caller.role == Role::kInstructor ? "an " : "a ") +
                     role_name(caller.role));
}

}  // namespace softbody::server
