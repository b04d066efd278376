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
#include <string>

#include "client-cpp/client/result.h"
#include "softbody/v1/simulation_service.grpc.pb.h"

namespace softbody::client {

class ToolStream
    : public grpc::ClientBidiReactor<softbody::v1::ToolCommand, softbody::v1::ForceReply> {
 public:
  using ReplyHandler =
      std::function<void(const softbody::v1::ForceReply&, std::chrono::steady_clock::time_point)>;
  using EndHandler = std::function<void(const Error&)>;  // OK status when closed cleanly

  // `host`: the address the stub talks to (for Client::follow when the stream ends).
  // `authorization`: the call's "authorization" metadata ("" for none).
  ToolStream(softbody::v1::Simulation::Stub& stub, std::string session_id, ReplyHandler on_reply,
             EndHandler on_end, std::string host = {}, const std::string& authorization = {});
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
  const std::string& host() const { return host_; }
  long sent() const { return sent_.load(); }
  long coalesced() const { return coalesced_.load(); }
  long received() const { return received_.load(); }
  // Replies the server left out, each superseded by a newer one (ForceReply.superseded).
  long superseded() const { return superseded_.load(); }

  // gRPC reactions.
  void OnWriteDone(bool ok) override;
  void OnReadDone(bool ok) override;
  void OnWritesDoneDone(bool ok) override;
  void OnDone(const grpc::Status& status) override;

 private:
  // What to start once mutex_ is released (gRPC calls are not made under our lock).
  struct Next {
    enum { kNothing, kWrite, kWritesDone } op = kNothing;
    bool release_hold = false;
  };
  // Chooses the next write, the half-close, or, once no write can follow, the release of the
  // hold that keeps OnDone from running while we might still start one. Call with mutex_ held.
  Next next_locked();
  void start(Next next);

  std::string session_id_;
  std::string host_;
  ReplyHandler on_reply_;
  EndHandler on_end_;
  grpc::ClientContext context_;
  softbody::v1::ForceReply reply_;

  mutable std::mutex mutex_;
  std::condition_variable done_cv_;
  softbody::v1::ToolCommand in_flight_;               // owned by gRPC while writing
  std::optional<softbody::v1::ToolCommand> pending_;  // guarded by mutex_
  // All guarded by mutex_. writing_: a write or the half-close is in flight. no_more_writes_: the
  // server finished, a write failed, or the half-close completed.
  bool writing_ = false, closing_ = false, writes_done_started_ = false;
  bool no_more_writes_ = false, hold_released_ = false, first_ = true;
  std::optional<Error> end_error_;  // guarded by mutex_
  std::atomic<bool> ended_{false};
  std::atomic<long> sent_{0}, coalesced_{0}, received_{0}, superseded_{0};
};

}  // namespace softbody::client
