// One tool's Interact stream on gRPC's callback API. send() never blocks: while a write is in
// flight the newest command waits in a one-slot mailbox (an older unsent one is replaced and
// counted as coalesced), so a haptic loop can call it every tick whatever the network does.
#pragma once

#include <grpcpp/grpcpp.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <functional>
#include <mutex>
#include <optional>

#include "client-cpp/client/result.h"
#include "softbody/v1/simulation_service.grpc.pb.h"

namespace softbody::client {

class ToolStream
    : public grpc::ClientBidiReactor<softbody::v1::ToolCommand, softbody::v1::ForceReply> {
 public:
  using ReplyHandler =
      std::function<void(const softbody::v1::ForceReply&, std::chrono::steady_clock::time_point)>;
  using EndHandler = std::function<void(const Error&)>;  // OK status when closed cleanly

  ToolStream(softbody::v1::Simulation::Stub& stub, std::string session_id, ReplyHandler on_reply,
             EndHandler on_end);
  ~ToolStream() override;
  ToolStream(const ToolStream&) = delete;
  ToolStream& operator=(const ToolStream&) = delete;

  // Queues the command (the session id is filled in). False once the stream has ended.
  bool send(softbody::v1::ToolCommand command);
  // Half-closes after the queued command is written, waits for the server's remaining replies and
  // the final status (at most `timeout`, then cancels).
  Error close(std::chrono::milliseconds timeout = std::chrono::milliseconds(5000));
  void cancel() { context_.TryCancel(); }

  bool ended() const { return ended_.load(); }
  std::optional<Error> end_error() const;
  long sent() const { return sent_.load(); }
  long coalesced() const { return coalesced_.load(); }
  long received() const { return received_.load(); }

  // gRPC reactions.
  void OnWriteDone(bool ok) override;
  void OnReadDone(bool ok) override;
  void OnWritesDoneDone(bool ok) override;
  void OnDone(const grpc::Status& status) override;

 private:
  // Starts the next write or the half-close when nothing is in flight. Called with mutex_ held;
  // returns what to start once the lock is released.
  enum class Next { kNothing, kWrite, kWritesDone };
  Next next_locked();
  void start(Next next);

  std::string session_id_;
  ReplyHandler on_reply_;
  EndHandler on_end_;
  grpc::ClientContext context_;
  softbody::v1::ForceReply reply_;

  mutable std::mutex mutex_;
  std::condition_variable done_cv_;
  softbody::v1::ToolCommand in_flight_;               // owned by gRPC while writing
  std::optional<softbody::v1::ToolCommand> pending_;  // guarded by mutex_
  bool writing_ = false;                              // guarded by mutex_
  bool closing_ = false, writes_done_started_ = false, write_failed_ = false;
  bool first_ = true;
  std::optional<Error> end_error_;  // guarded by mutex_
  std::atomic<bool> ended_{false};
  std::atomic<long> sent_{0}, coalesced_{0}, received_{0};
};

}  // namespace softbody::client
