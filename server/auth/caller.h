// Who is calling and what they may do. Roles (docs/security.md):
//   trainee     creates sessions and steers and watches its own
//   instructor  also joins, watches and controls anyone's sessions (e.g. a trainee's)
//   admin       everything: also host operations (migration, metrics, status)
// Without authentication configured (development mode) every caller is an anonymous admin.
#pragma once

#include <optional>
#include <string>

namespace softbody::server {

enum class Role { kTrainee, kInstructor, kAdmin };

const char* role_name(Role role);
// std::nullopt unless "trainee", "instructor" or "admin".
std::optional<Role> parse_role(const std::string& text);

// Per-caller limits (0: no limit beyond the server's own). From the token file entry or the JWT.
struct Quota {
  int max_sessions = 0;          // sessions this caller owns at once
  long max_upload_vertices = 0;  // vertices of one uploaded mesh
  double max_tool_rate_hz = 0;   // tool commands per second, over all of the caller's streams
  int max_subscriptions = 0;     // state streams this caller holds at once
};

struct Caller {
  std::string subject;  // the token's name or the JWT's "sub"; "" when anonymous
  Role role = Role::kAdmin;
  Quota quota;
  bool authenticated = false;  // false: development mode

  static Caller anonymous() { return {}; }
};

}  // namespace softbody::server
