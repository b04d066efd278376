#include "client-cpp/load/haptic_client.h"

#include <cmath>
#include <mutex>

#include "client-cpp/client/failure_streak.h"
#include "client-cpp/haptics/periodic_timer.h"

namespace softbody::client {
namespace {

// A sphere of 1.5 cm radius oscillating at 1 Hz along x into the body's side at 60 % height; the
// phase differs per client so several tools do not move in lockstep.
v1::ToolCommand scripted_command(const v1::BoundingBox& box, double t, double phase,
                                 v1::ContactModel contact_model) {
  const double height = box.min().y() + 0.6 * (box.max().y() - box.min().y());
  const double amplitude = 0.25 * (box.max().x() - box.min().x());
  const double a = 2 * M_PI * t + phase;
  v1::ToolCommand c;
  c.set_client_time_s(t);
  c.mutable_pose()->mutable_position()->set_x(box.max().x() + 0.015 -
                                              amplitude * (1 - std::cos(a)));
  c.mutable_pose()->mutable_position()->set_y(height);
  c.mutable_pose()->mutable_position()->set_z(0.5 * (box.min().z() + box.max().z()));
  c.mutable_velocity()->set_x(-amplitude * 2 * M_PI * std::sin(a));
  c.set_radius(0.015);
  c.set_mode(v1::TOOL_MODE_POKE);
  c.set_contact_model(contact_model);
  if (contact_model != v1::CONTACT_MODEL_PENALTY) c.set_friction_coefficient(0.3);
  return c;
}

}  // namespace

void LiveCounters::note_age(double age_s) {
  double seen = oldest_force_s.load(std::memory_order_relaxed);
  while (age_s > seen && !oldest_force_s.compare_exchange_weak(seen, age_s)) {
  }
}

void run_haptic_client(Client& client, const v1::SessionInfo& session, const LoadOptions& o,
                       double phase, const MeasuredWindow& m, LoadClock::time_point epoch,
                       HapticClientResult& out, ErrorCounter& errors, LiveCounters& live) {
  std::mutex mutex;
  auto seconds = [&](LoadClock::time_point t) {
    return std::chrono::duration<double>(t - epoch).count();
  };
  const double measure_from = seconds(m.from), measure_until = seconds(m.until);
  std::atomic<long> rejected{0};
  // The client time of the command the newest force answers. Before any reply, the force the
  // device holds is as old as the run (the client's clock starts at 0 with its first command).
  std::atomic<double> newest_answered{0};
  auto on_reply = [&](const v1::ForceReply& r, LoadClock::time_point at) {
    if (!r.rejected().empty()) {
      ++rejected;  // refused (a quota): it carries no force
      return;
    }
    double held = newest_answered.load(std::memory_order_relaxed);
    while (r.client_time_s() > held &&
           !newest_answered.compare_exchange_weak(held, r.client_time_s())) {
    }
    live.replies.fetch_add(1, std::memory_order_relaxed);
    if (r.client_time_s() < measure_from || r.client_time_s() >= measure_until) return;
    std::lock_guard lock(mutex);
    out.round_trip.record(seconds(at) - r.client_time_s());
    out.server_time.record(1e-6 * r.server_time_us());
  };
  auto open = [&] { return client.interact(session.id(), on_reply); };
  auto account = [&](ToolStream& stream) {
    out.sent += stream.sent();
    out.received += stream.received();
    out.superseded += stream.superseded();
    out.coalesced += stream.coalesced();
  };
  PeriodicTimer timer(o.rate_hz, 0);  // sleep only: a load generator must not burn cores spinning
  std::uint64_t sequence = 0;
  std::unique_ptr<ToolStream> stream = open();
  // A stream that ends early is reopened as a haptic client would: on the host the session went
  // to (drained or migrated; Client::follow), or after a backoff on the same one when it is only
  // unavailable. Anything else ends this client with an error.
  constexpr double kFirstBackoffS = 0.05, kLastBackoffS = 1;
  double backoff_s = kFirstBackoffS, retry_at = 0;
  const long overruns_before = timer.overruns();
  long overruns_in_window = 0;
  for (LoadClock::time_point now = LoadClock::now(); now < m.until; now = timer.wait()) {
    if (m.measuring(now)) {
      // What the device renders at this tick: the newest force, as old as its command.
      const double age = seconds(now) - newest_answered.load(std::memory_order_relaxed);
      out.force_age.record(age);
      ++out.ticks;
      live.ticks.fetch_add(1, std::memory_order_relaxed);
      live.note_age(age);
      if (age > o.deadline_s) {
        ++out.deadline_misses;
        live.deadline_misses.fetch_add(1, std::memory_order_relaxed);
      }
      overruns_in_window = timer.overruns() - overruns_before;
    }
    if (stream->ended()) {
      if (seconds(now) < retry_at) continue;
      const Error end = stream->end_error().value_or(Error{grpc::StatusCode::UNKNOWN, "ended"});
      const bool moved = client.follow(end, stream->host());
      if (!moved && !retryable(end.code)) break;
      account(*stream);
      stream = open();
      ++out.reconnects;
      retry_at = seconds(now) + (moved ? 0 : backoff_s);
      backoff_s = moved ? kFirstBackoffS : std::min(2 * backoff_s, kLastBackoffS);
      continue;
    }
    v1::ToolCommand c =
        scripted_command(session.rest_bounds(), seconds(now), phase, o.contact_model);
    c.set_sequence(sequence++);
    if (stream->send(std::move(c))) backoff_s = kFirstBackoffS;
  }
  const Error end = stream->close(std::chrono::milliseconds(5000));
  if (end.code != grpc::StatusCode::OK) errors.add(end);
  account(*stream);
  out.rejected = rejected;
  out.generator_overruns = overruns_in_window;
}

}  // namespace softbody::client
