// Typed results of client calls: a value, or the server's status code and message.
#pragma once

#include <grpcpp/support/status.h>

#include <stdexcept>
#include <string>
#include <utility>
#include <variant>

namespace softbody::client {

struct Error {
  grpc::StatusCode code = grpc::StatusCode::UNKNOWN;
  std::string message;
  // Set when the status says the session went to another host (its SessionMoved detail):
  // reason "migrated" (moved_to names the new host's gRPC address) or "drained" (saved to the
  // snapshot store; any host of the cluster restores it when asked).
  std::string moved_reason{}, moved_to{};

  static Error from(const grpc::Status& status);
  // "NOT_FOUND: session 'abc' not found"
  std::string to_string() const;
};

const char* status_code_name(grpc::StatusCode code);

// Thrown by Result::value() on an error result.
class ClientError : public std::runtime_error {
 public:
  explicit ClientError(Error e) : std::runtime_error(e.to_string()), error_(std::move(e)) {}
  const Error& error() const { return error_; }

 private:
  Error error_;
};

struct Empty {};

template <typename T>
class Result {
 public:
  Result(T value) : v_(std::move(value)) {}      // NOLINT(google-explicit-constructor)
  Result(Error error) : v_(std::move(error)) {}  // NOLINT(google-explicit-constructor)

  bool ok() const { return v_.index() == 0; }
  explicit operator bool() const { return ok(); }

  const T& value() const& {
    if (!ok()) throw ClientError(error());
    return std::get<0>(v_);
  }
  T&& value() && {
    if (!ok()) throw ClientError(error());
    return std::get<0>(std::move(v_));
  }
  const T* operator->() const { return &value(); }
  const T& operator*() const { return value(); }
  const Error& error() const { return std::get<1>(v_); }

 private:
  std::variant<T, Error> v_;
};

}  // namespace softbody::client
