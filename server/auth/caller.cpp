#include "server/auth/caller.h"

namespace softbody::server {

const char* role_name(Role role) {
  switch (role) {
    case Role::kTrainee:
      return "trainee";
    case Role::kInstructor:
      return "instructor";
    case Role::kAdmin:
      return "admin";
  }
  return "?";
}

std::optional<Role> parse_role(const std::string& text) {
  if (text == "trainee") return Role::kTrainee;
  if (text == "instructor") return Role::kInstructor;
  if (text == "admin") return Role::kAdmin;
  return std::nullopt;
}

}  // namespace softbody::server
