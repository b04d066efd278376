#include "client-cpp/client/failure_streak.h"

#include <cstdio>

namespace softbody::client {

bool retryable(grpc::StatusCode code) {
  switch (code) {
    case grpc::StatusCode::CANCELLED:  // not by us: a server shutting down cancels its calls
    case grpc::StatusCode::UNAVAILABLE:
    case grpc::StatusCode::DEADLINE_EXCEEDED:
    case grpc::StatusCode::ABORTED:
    case grpc::StatusCode::INTERNAL:
    case grpc::StatusCode::UNKNOWN:
      return true;
    default:
      return false;
  }
}

bool FailureStreak::failed(const Error& error, Clock::time_point now) {
  if (!first_) {
    first_ = error;
    since_ = now;
  }
  last_ = error;
  if (!retryable(error.code)) return false;
  return give_up_after_.count() < 0 || now - since_ < give_up_after_;
}

Error FailureStreak::verdict() const {
  if (!first_) return {grpc::StatusCode::OK, ""};
  if (!retryable(last_->code)) return *last_;  // the failure that ended it says it all
  Error e = *first_;
  char duration[32];
  std::snprintf(duration, sizeof duration, "%.0f s",
                std::chrono::duration<double>(Clock::now() - since_).count());
  e.message += std::string(" (not back after ") + duration;
  if (last_->message != first_->message) e.message += "; last: " + last_->to_string();
  e.message += ")";
  return e;
}

}  // namespace softbody::client
