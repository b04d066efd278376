#include "proto/status_details.h"

#include "google/rpc/status.pb.h"

namespace softbody::v1 {

grpc::Status status_with_moved(grpc::StatusCode code, const std::string& message,
                               const SessionMoved& moved) {
  google::rpc::Status details;
  details.set_code(static_cast<int>(code));
  details.set_message(message);
  details.add_details()->PackFrom(moved);
  return {code, message, details.SerializeAsString()};
}

std::optional<SessionMoved> moved_detail(const grpc::Status& status) {
  if (status.error_details().empty()) return std::nullopt;
  google::rpc::Status details;
  if (!details.ParseFromString(status.error_details())) return std::nullopt;
  for (const auto& any : details.details()) {
    SessionMoved moved;
    if (any.Is<SessionMoved>() && any.UnpackTo(&moved)) return moved;
  }
  return std::nullopt;
}

}  // namespace softbody::v1
