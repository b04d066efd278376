// One Interact stream (callback API): reads tool commands and answers each at once with the force
// at the command's pose and the tool's coupling model. While a write is in flight the newest
// reply waits, replacing an older waiting force (rejections wait in order, at most
// StreamLimits::max_pending_replies).
#pragma once

#include <deque>
#include <memory>
#include <mutex>
#include <optional>

#include "server/auth/quota.h"
#include "server/sessions/session_manager.h"
#include "softbody/v1/simulation_service.grpc.pb.h"

namespace softbody::server {

class InteractReactor final
    : public grpc::ServerBidiReactor<softbody::v1::ToolCommand, softbody::v1::ForceReply> {
 public:
  // `authenticated`: the outcome of authenticating the call; when not OK the stream is finished
  // with it at once. `caller` may use only sessions the access policy grants it.
  InteractReactor(SessionManager& sessions, Metrics& metrics, int max_pending_replies,
                  Caller caller, const grpc::Status& authenticated, CallerStreams& streams);

  void OnReadDone(bool ok) override;
  void OnWriteDone(bool ok) override;
  void OnCancel() override {}
  void OnDone() override;

 private:
  // Ends the stream once (from any thread).
  void finish(const grpc::Status& status);
  bool attach(const softbody::v1::ToolCommand& first);
  void answer(const softbody::v1::ToolCommand& command, Clock::time_point received);

  SessionManager& sessions_;
  Metrics& metrics_;
  const Caller caller_;
  CallerStreams& streams_;
  const int max_pending_replies_;
  softbody::v1::ToolCommand command_;

  std::mutex mutex_;  // guards the reply queue and the finished flag
  std::deque<softbody::v1::ForceReply> replies_;
  bool writing_ = false;
  bool reads_done_ = false;  // the client half-closed; finish when the queue is written
  bool finished_ = false;
  // A finish asked for while a write was in flight: gRPC allows one write or finish in flight at
  // a time (a Finish beside a write can lose the status: the client saw CANCELLED instead of
  // "the server is shutting down"), so OnWriteDone sends it.
  std::optional<grpc::Status> finish_after_write_;

  std::shared_ptr<Session> session_;
  std::shared_ptr<Tool> tool_;
  // Lets the session end this stream; cleared in OnDone. Recursive: OnDone may run inside Finish.
  struct Handle {
    std::recursive_mutex mutex;
    InteractReactor* reactor = nullptr;
  };
  std::shared_ptr<Handle> handle_;
};

}  // namespace softbody::server
