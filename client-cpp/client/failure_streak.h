// When a client stops reopening a stream that keeps failing. Streams (state subscriptions, tool
// streams) are reopened after transient failures: a server restarting or draining, a network
// hiccup. A failure that will not go away by waiting (a refused limit, a missing session) ends the
// stream at once, and transient ones end it too when nothing has worked for a while, so a tool
// never hides a failure behind silent retries. The error it ends with is the first of the streak
// (the cause: "the server is shutting down"), not the last ("connection refused").
#pragma once

#include <grpcpp/support/status.h>

#include <chrono>
#include <optional>

#include "client-cpp/client/result.h"

namespace softbody::client {

// Transient failures worth reopening a stream for. RESOURCE_EXHAUSTED is not one: it is a limit
// the server enforces (--max-subscribers, --max-tools); waiting would only hide it.
bool retryable(grpc::StatusCode code);

class FailureStreak {
 public:
  using Clock = std::chrono::steady_clock;

  // `give_up_after`: how long failures may go on without a success (zero: give up at the first;
  // negative: never).
  explicit FailureStreak(std::chrono::milliseconds give_up_after) : give_up_after_(give_up_after) {}

  // The stream worked (data arrived): the streak is over.
  void succeeded() { first_.reset(); }
  // Records a failure; true if it is worth another attempt.
  bool failed(const Error& error, Clock::time_point now = Clock::now());
  // Why to give up: the streak's first error, saying how long it went on and how it ended.
  Error verdict() const;
  bool failing() const { return first_.has_value(); }

 private:
  std::chrono::milliseconds give_up_after_;
  std::optional<Error> first_, last_;
  Clock::time_point since_;
};

}  // namespace softbody::client
