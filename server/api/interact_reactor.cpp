#include "server/api/interact_reactor.h"

#include "server/api_error.h"
#include "server/logging.h"
#include "server/sessions/tool_commands.h"

namespace softbody::server {

InteractReactor::InteractReactor(SessionManager& sessions, Metrics& metrics,
                                 int max_pending_replies, Caller caller,
                                 const grpc::Status& authenticated, CallerStreams& streams)
    : sessions_(sessions),
      metrics_(metrics),
      caller_(std::move(caller)),
      streams_(streams),
      max_pending_replies_(max_pending_replies),
      handle_(std::make_shared<Handle>()) {
  handle_->reactor = this;
  if (!authenticated.ok()) {
    finish(authenticated);
    return;
  }
  StartRead(&command_);
}

bool InteractReactor::attach(const v1::ToolCommand& first) {
  try {
    if (sessions_.shutting_down())
      throw ApiError(grpc::StatusCode::UNAVAILABLE, "the server is shutting down");
    session_ = sessions_.find_for(caller_, first.session_id(), SessionUse::kSteer);
    tool_ = session_->attach_tool();
  } catch (const ApiError& e) {
    if (e.code() == grpc::StatusCode::PERMISSION_DENIED) metrics_.permission_denied.fetch_add(1);
    finish(e.status());
    return false;
  }
  std::weak_ptr<Handle> weak = handle_;
  std::lock_guard lock(tool_->mutex);
  tool_->close = [weak](const grpc::Status& status) {
    if (auto handle = weak.lock()) {
      std::lock_guard handle_lock(handle->mutex);
      if (handle->reactor) handle->reactor->finish(status);
    }
  };
  spdlog::info("event=tool_attached session={} tool={}", session_->id(), tool_->id());
  return true;
}

void InteractReactor::OnReadDone(bool ok) {
  const Clock::time_point received = Clock::now();
  if (!ok) {
    // The client closed its side: finish once every queued reply is written.
    std::unique_lock lock(mutex_);
    reads_done_ = true;
    const bool drained = !writing_;
    lock.unlock();
    if (drained) finish(grpc::Status::OK);
    return;
  }
  if (!session_ && !attach(command_)) return;
  if (!command_.session_id().empty() && command_.session_id() != session_->id()) {
    finish({grpc::StatusCode::INVALID_ARGUMENT,
            "session_id: a stream drives one session ('" + session_->id() + "')"});
    return;
  }
  answer(command_, received);
  std::lock_guard lock(mutex_);
  if (!finished_) StartRead(&command_);
}

void InteractReactor::answer(const v1::ToolCommand& command, Clock::time_point received) {
  v1::ForceReply reply;
  answer_tool_command(*session_, *tool_, caller_, streams_, sessions_.tool_meshes(), command,
                      received, metrics_, reply);
  std::unique_lock lock(mutex_);
  if (finished_) return;
  // While a write is in flight (the front, owned by gRPC) the newest reply supersedes a queued
  // force that said nothing else: a client renders the newest model, and on a slow or lossy link
  // every reply queued behind the stalled one is a round trip staler than the last (measured on a
  // 300 ms link with 2 % loss: round trips of 0.8 s behind thousands of queued replies). A
  // rejection stays: it names a field the client must see. A step's contact problem is sent once,
  // with its first reply: the newer reply takes it over when it has none of its own.
  if (replies_.size() > 1 && replies_.back().rejected().empty()) {
    v1::ForceReply& superseded = replies_.back();
    if (!reply.has_contact_problem() && superseded.has_contact_problem() &&
        reply.contact_model() == v1::CONTACT_MODEL_CONSTRAINT)
      reply.mutable_contact_problem()->Swap(superseded.mutable_contact_problem());
    reply.set_superseded(superseded.superseded() + 1);
    superseded = std::move(reply);
    metrics_.interact_force_replies_coalesced.fetch_add(1, std::memory_order_relaxed);
    return;
  }
  if (static_cast<int>(replies_.size()) >= max_pending_replies_) {
    lock.unlock();
    finish({grpc::StatusCode::RESOURCE_EXHAUSTED, "the client is not reading force replies (" +
                                                      std::to_string(max_pending_replies_) +
                                                      " pending)"});
    return;
  }
  replies_.push_back(std::move(reply));
  if (!writing_) {
    writing_ = true;
    StartWrite(&replies_.front());
  }
}

void InteractReactor::OnWriteDone(bool ok) {
  std::unique_lock lock(mutex_);
  replies_.pop_front();
  if (finish_after_write_) {
    writing_ = false;
    const grpc::Status status = *finish_after_write_;
    finish_after_write_.reset();
    lock.unlock();
    Finish(status);  // last: OnDone (which deletes this) may follow at once
    return;
  }
  if (!ok || finished_) {
    writing_ = false;
    return;
  }
  if (!replies_.empty()) {
    StartWrite(&replies_.front());
    return;
  }
  writing_ = false;
  const bool done = reads_done_;
  lock.unlock();
  if (done) finish(grpc::Status::OK);
}

void InteractReactor::finish(const grpc::Status& status) {
  {
    std::lock_guard lock(mutex_);
    if (finished_) return;
    finished_ = true;
    if (writing_) {
      finish_after_write_ = status;  // OnWriteDone finishes
      return;
    }
  }
  Finish(status);  // last: OnDone (which deletes this) may follow at once
}

void InteractReactor::OnDone() {
  if (session_ && tool_) {
    session_->detach_tool(tool_);
    spdlog::info("event=tool_detached session={} tool={}", session_->id(), tool_->id());
  }
  {
    std::lock_guard lock(handle_->mutex);
    handle_->reactor = nullptr;
  }
  delete this;
}

}  // namespace softbody::server
