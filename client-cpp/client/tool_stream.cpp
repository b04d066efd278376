#include "client-cpp/client/tool_stream.h"

namespace softbody::client {

namespace v1 = softbody::v1;

ToolStream::ToolStream(v1::Simulation::Stub& stub, std::string session_id, ReplyHandler on_reply,
                       EndHandler on_end, std::string host, const std::string& authorization)
    : session_id_(std::move(session_id)),
      host_(std::move(host)),
      on_reply_(std::move(on_reply)),
      on_end_(std::move(on_end)) {
  if (!authorization.empty()) context_.AddMetadata("authorization", authorization);
  stub.async()->Interact(&context_, this);
  // Writes are started from the caller's thread at any time; without the hold gRPC could finish
  // the call (OnDone) between our decision to write and StartWrite, and the late write's reaction
  // would reach a destroyed reactor.
  AddHold();
  StartRead(&reply_);
  StartCall();
}

ToolStream::~ToolStream() {
  if (!ended_) context_.TryCancel();
  // OnDone is the last reaction; wait until it has released the lock for good.
  std::unique_lock lock(mutex_);
  done_cv_.wait(lock, [this] { return end_error_.has_value(); });
}

bool ToolStream::send(v1::ToolCommand command) {
  Next next;
  {
    std::lock_guard lock(mutex_);
    if (closing_ || no_more_writes_) return false;
    if (first_) {
      command.set_session_id(session_id_);
      first_ = false;
    }
    if (pending_) ++coalesced_;
    pending_ = std::move(command);
    next = next_locked();
  }
  start(next);
  return true;
}

ToolStream::Next ToolStream::next_locked() {
  Next next;
  if (writing_) return next;
  if (no_more_writes_) {
    pending_.reset();
    next.release_hold = !hold_released_;
    hold_released_ = true;
    return next;
  }
  if (pending_) {
    in_flight_ = std::move(*pending_);
    pending_.reset();
    writing_ = true;
    next.op = Next::kWrite;
  } else if (closing_ && !writes_done_started_) {
    writes_done_started_ = true;
    writing_ = true;
    next.op = Next::kWritesDone;
  }
  return next;
}

void ToolStream::start(Next next) {
  if (next.op == Next::kWrite) {
    ++sent_;
    StartWrite(&in_flight_);
  } else if (next.op == Next::kWritesDone) {
    StartWritesDone();
  }
  if (next.release_hold) RemoveHold();
}

void ToolStream::OnWriteDone(bool ok) {
  Next next;
  {
    std::lock_guard lock(mutex_);
    writing_ = false;
    if (!ok) no_more_writes_ = true;  // the stream is broken; OnDone follows
    next = next_locked();
  }
  start(next);
}

void ToolStream::OnWritesDoneDone(bool /*ok*/) {
  Next next;
  {
    std::lock_guard lock(mutex_);
    writing_ = false;
    no_more_writes_ = true;
    next = next_locked();
  }
  start(next);
}

void ToolStream::OnReadDone(bool ok) {
  if (ok) {
    ++received_;
    superseded_ += reply_.superseded();
    if (on_reply_) on_reply_(reply_, std::chrono::steady_clock::now());
    StartRead(&reply_);
    return;
  }
  // The server finished (or the call failed): nothing more will be written.
  Next next;
  {
    std::lock_guard lock(mutex_);
    no_more_writes_ = true;
    next = next_locked();
  }
  start(next);
}

void ToolStream::OnDone(const grpc::Status& status) {
  const Error e = Error::from(status);
  ended_ = true;
  if (on_end_) on_end_(e);
  std::lock_guard lock(mutex_);
  end_error_ = e;
  done_cv_.notify_all();
}

std::optional<Error> ToolStream::end_error() const {
  std::lock_guard lock(mutex_);
  return end_error_;
}

Error ToolStream::close(std::chrono::milliseconds timeout) {
  Next next;
  {
    std::lock_guard lock(mutex_);
    closing_ = true;
    next = next_locked();
  }
  start(next);
  std::unique_lock lock(mutex_);
  if (!done_cv_.wait_for(lock, timeout, [this] { return end_error_.has_value(); })) {
    lock.unlock();
    context_.TryCancel();
    lock.lock();
    done_cv_.wait(lock, [this] { return end_error_.has_value(); });
  }
  return *end_error_;
}

}  // namespace softbody::client
