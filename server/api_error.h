// Errors the API reports to clients: a gRPC status code and a message naming the field at fault.
// The session layer throws them; the service layer turns them into grpc::Status.
#pragma once

#include <grpcpp/support/status.h>

#include <stdexcept>
#include <string>

namespace softbody::server {

class ApiError : public std::runtime_error {
 public:
  // `details`: a serialized google.rpc.Status with error details (e.g. where a session moved).
  ApiError(grpc::StatusCode code, const std::string& message, std::string details = {})
      : std::runtime_error(message), code_(code), details_(std::move(details)) {}
  explicit ApiError(const grpc::Status& status)
      : ApiError(status.error_code(), status.error_message(), status.error_details()) {}
  grpc::StatusCode code() const { return code_; }
  grpc::Status status() const { return {code_, what(), details_}; }

 private:
  grpc::StatusCode code_;
  std::string details_;
};

[[noreturn]] inline void invalid_argument(const std::string& field, const std::string& problem) {
  throw ApiError(grpc::StatusCode::INVALID_ARGUMENT, field + ": " + problem);
}

}  // namespace softbody::server
