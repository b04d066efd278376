#include "client-cpp/client/tool_stream.h"

namespace softbody::client {

namespace v1 = softbody::v1;

ToolStream::ToolStream(v1::Simulation::Stub& stub, std::string session_id, ReplyHandler on_reply,
                       EndHandler on_end)
    : session_id_(std::move(session_id)),
      on_reply_(std::move(on_reply)),
      on_end_(std::move(on_end)) {
  stub.async()->Interact(&context_, this);
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
    if (end_error_ || closing_ || write_failed_) return false;
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
  if (writing_ || write_failed_) return Next::kNothing;
  if (pending_) {
    in_flight_ = std::move(*pending_);
    pending_.reset();
    writing_ = true;
    return Next::kWrite;
  }
  if (closing_ && !writes_done_started_) {
    writes_done_started_ = true;
    writing_ = true;
    return Next::kWritesDone;
  }
  return Next::kNothing;
}

void ToolStream::start(Next next) {
  if (next == Next::kWrite) {
    ++sent_;
    StartWrite(&in_flight_);
  } else if (next == Next::kWritesDone) {
    StartWritesDone();
  }
}

void ToolStream::OnWriteDone(bool ok) {
  Next next;
  {
    std::lock_guard lock(mutex_);
    writing_ = false;
    if (!ok) write_failed_ = true;  // the stream is broken; OnDone follows
    next = next_locked();
  }
  start(next);
}

void ToolStream::OnWritesDoneDone(bool /*ok*/) {}

void ToolStream::OnReadDone(bool ok) {
  if (!ok) return;  // the server finished; OnDone follows
  ++received_;
  if (on_reply_) on_reply_(reply_, std::chrono::steady_clock::now());
  StartRead(&reply_);
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
