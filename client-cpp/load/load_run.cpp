#include "client-cpp/load/load_run.h"

#include <atomic>
#include <cmath>
#include <map>
#include <mutex>
#include <thread>

#include "client-cpp/client/client.h"
#include "client-cpp/client/failure_streak.h"
#include "client-cpp/haptics/histogram.h"
#include "client-cpp/haptics/periodic_timer.h"

namespace softbody::client {

namespace v1 = softbody::v1;
using Clock = std::chrono::steady_clock;

namespace {

// Errors by status code name, from any thread.
class ErrorCounter {
 public:
  void add(const Error& e) {
    std::lock_guard lock(mutex_);
    ++counts_[status_code_name(e.code)];
    if (examples_.size() < 5) examples_.push_back(e.to_string());
  }
  nlohmann::json json() const {
    std::lock_guard lock(mutex_);
    long total = 0;
    for (const auto& [name, n] : counts_) total += n;
    return {{"total", total}, {"by_status", counts_}, {"examples", examples_}};
  }

 private:
  mutable std::mutex mutex_;
  std::map<std::string, long> counts_;
  std::vector<std::string> examples_;
};

struct Measurement {
  Clock::time_point from, until;
  bool measuring(Clock::time_point t) const { return t >= from && t < until; }
};

// A sphere of 1.5 cm radius oscillating at 1 Hz along x into the body's side at 60 % height; the
// phase differs per client so several tools do not move in lockstep.
v1::ToolCommand scripted_command(const v1::BoundingBox& box, double t, double phase) {
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
  return c;
}

struct HapticClientResult {
  Histogram round_trip, server_time;
  long sent = 0, received = 0, coalesced = 0, rejected = 0, reconnects = 0;
};

void run_haptic_client(Client& client, const v1::SessionInfo& session, const LoadOptions& o,
                       double phase, const Measurement& m, Clock::time_point epoch,
                       HapticClientResult& out, ErrorCounter& errors) {
  std::mutex mutex;
  auto seconds = [&](Clock::time_point t) {
    return std::chrono::duration<double>(t - epoch).count();
  };
  const double measure_from = seconds(m.from), measure_until = seconds(m.until);
  std::atomic<long> rejected{0};
  auto on_reply = [&](const v1::ForceReply& r, Clock::time_point at) {
    if (!r.rejected().empty()) ++rejected;
    if (r.client_time_s() < measure_from || r.client_time_s() >= measure_until) return;
    std::lock_guard lock(mutex);
    out.round_trip.record(seconds(at) - r.client_time_s());
    out.server_time.record(1e-6 * r.server_time_us());
  };
  auto open = [&] { return client.interact(session.id(), on_reply); };
  auto account = [&](ToolStream& stream) {
    out.sent += stream.sent();
    out.received += stream.received();
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
  for (Clock::time_point now = Clock::now(); now < m.until; now = timer.wait()) {
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
    v1::ToolCommand c = scripted_command(session.rest_bounds(), seconds(now), phase);
    c.set_sequence(sequence++);
    if (stream->send(std::move(c))) backoff_s = kFirstBackoffS;
  }
  const Error end = stream->close(std::chrono::milliseconds(5000));
  if (end.code != grpc::StatusCode::OK) errors.add(end);
  account(*stream);
  out.rejected = rejected;
}

struct SubscriberResult {
  Histogram interval;
  long frames = 0, dropped = 0, skipped = 0;
  double bytes = 0, vertices = 0;
};

}  // namespace

nlohmann::json run_load(const LoadOptions& o, std::ostream& progress) {
  ClientOptions co;
  co.set_servers(o.server);
  co.bearer_token = o.bearer_token;
  co.tls_ca_file = o.tls_ca_file;
  std::atomic<long> host_switches{0};
  co.on_switch = [&](const std::string& address, const std::string& why) {
    ++host_switches;
    progress << "load: now talking to " << address << ": " << why << std::endl;
  };
  Client client(co);
  if (!client.wait_until_connected(std::chrono::seconds(10))) {
    // The channel says only that it is not ready: the call's status says why, and the commonest
    // cause on a reachable port is a TLS mismatch.
    const auto probe = client.list_sessions();
    const std::string why = probe ? "" : ": " + probe.error().to_string();
    // The client library names a TLS mismatch it recognizes; otherwise the likeliest causes.
    throw std::runtime_error(
        "cannot connect to " + o.server + why +
        (why.find("TLS") != std::string::npos ? ""
         : o.tls_ca_file.empty()
             ? " (a server started with --tls-cert needs --tls-ca)"
             : " (is it running, and does --tls-ca name the authority of its certificate?)"));
  }

  ErrorCounter errors;
  std::vector<v1::SessionInfo> sessions;
  for (int i = 0; i < o.sessions; ++i) {
    auto created = client.create_session(o.scene, o.overrides);
    if (!created) {
      for (const auto& s : sessions) client.delete_session(s.id());
      throw std::runtime_error("CreateSession: " + created.error().to_string());
    }
    sessions.push_back(*created);
  }
  progress << "load: " << o.sessions << " sessions of '" << o.scene << "' on " << o.server << ", "
           << o.subscribers_per_session << " subscribers and " << o.haptic_per_session
           << " haptic clients each, " << o.warmup_s << " s warm-up + " << o.duration_s
           << " s measured" << std::endl;

  const Clock::time_point epoch = Clock::now();
  auto after = [](Clock::time_point t, double s) {
    return t + std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(s));
  };
  const Measurement m{after(epoch, o.warmup_s), after(epoch, o.warmup_s + o.duration_s)};

  const size_t n = sessions.size();
  std::vector<std::vector<SubscriberResult>> subs(n);
  std::vector<std::unique_ptr<StateSubscription>> subscriptions;
  std::vector<std::unique_ptr<std::mutex>> sub_mutexes;
  for (size_t i = 0; i < n; ++i) {
    subs[i].resize(static_cast<size_t>(o.subscribers_per_session));
    for (auto& result : subs[i]) {
      SubscriptionOptions so;
      so.max_rate_hz = o.frame_rate_hz;
      so.error_bound = o.error_bound;
      so.reconnect = true;  // and follows the session to another host, as a real client does
      auto last = std::make_shared<Clock::time_point>();
      subscriptions.push_back(client.subscribe(
          sessions[i].id(), so,
          [&result, &m, last](const DecodedFrame& f) {
            // Only this subscription's thread touches `result` until it is stopped.
            if (m.measuring(f.received_at)) {
              if (*last >= m.from)
                result.interval.record(
                    std::chrono::duration<double>(f.received_at - *last).count());
              ++result.frames;
              result.dropped += f.frames_dropped;
              result.skipped += f.frames_skipped;
              result.bytes += static_cast<double>(f.encoded_bytes);
              result.vertices += static_cast<double>(f.positions.size() / 3);
            }
            *last = f.received_at;
          },
          [&errors](const Error& e) {
            if (e.code != grpc::StatusCode::CANCELLED) errors.add(e);
          }));
    }
  }
  std::vector<std::vector<HapticClientResult>> haptics(n);
  std::vector<std::thread> threads;
  for (size_t i = 0; i < n; ++i) {
    haptics[i].resize(static_cast<size_t>(o.haptic_per_session));
    for (size_t h = 0; h < haptics[i].size(); ++h) {
      const double phase =
          2 * M_PI * static_cast<double>(h) / static_cast<double>(haptics[i].size());
      threads.emplace_back([&, i, h, phase] {
        run_haptic_client(client, sessions[i], o, phase, m, epoch, haptics[i][h], errors);
      });
    }
  }

  // Each session's real-time factor over the measured window: simulated / wall-clock seconds.
  auto sim_times = [&] {
    std::vector<double> t;
    for (const auto& s : sessions) {
      auto info = client.get_session(s.id());
      if (!info) errors.add(info.error());
      t.push_back(info ? info->last_step().sim_time() : 0);
    }
    return t;
  };
  std::this_thread::sleep_until(m.from);
  progress << "load: measuring" << std::endl;
  const auto sim0 = sim_times();
  const Clock::time_point wall0 = Clock::now();
  std::this_thread::sleep_until(m.until);
  const auto sim1 = sim_times();
  const double wall = std::chrono::duration<double>(Clock::now() - wall0).count();
  for (auto& t : threads) t.join();
  for (auto& s : subscriptions) s->stop();

  Histogram round_trip, server_time, interval;
  long sent = 0, received = 0, coalesced = 0, rejected = 0, frames = 0, dropped = 0;
  long skipped = 0;
  long tool_reconnects = 0, subscription_reconnects = 0;
  for (const auto& s : subscriptions) subscription_reconnects += s->reconnects();
  double bytes = 0, vertices = 0, expected_frames = 0;
  std::vector<double> rtf;
  for (size_t i = 0; i < n; ++i) {
    rtf.push_back((sim1[i] - sim0[i]) / wall);
    for (const auto& h : haptics[i]) {
      round_trip.merge(h.round_trip);
      server_time.merge(h.server_time);
      sent += h.sent;
      received += h.received;
      coalesced += h.coalesced;
      rejected += h.rejected;
      tool_reconnects += h.reconnects;
    }
    const double step_rate = 1 / sessions[i].settings().dt();
    for (const auto& s : subs[i]) {
      interval.merge(s.interval);
      frames += s.frames;
      dropped += s.dropped;
      skipped += s.skipped;
      bytes += s.bytes;
      vertices += s.vertices;
      expected_frames += std::min(o.frame_rate_hz, step_rate) * o.duration_s;
    }
  }
  if (!o.keep_sessions)
    for (const auto& s : sessions) client.delete_session(s.id());

  nlohmann::json rtf_json = {{"per_session", rtf}};
  if (!rtf.empty()) {
    std::vector<double> sorted = rtf;
    std::sort(sorted.begin(), sorted.end());
    rtf_json["min"] = sorted.front();
    rtf_json["p50"] = sorted[sorted.size() / 2];
  }
  return {
      {"tool", "softbody-load"},
      {"server", o.server},
      {"scene", o.scene},
      {"sessions", o.sessions},
      {"subscribers_per_session", o.subscribers_per_session},
      {"haptic_per_session", o.haptic_per_session},
      {"rate_hz", o.rate_hz},
      {"frame_rate_hz", o.frame_rate_hz},
      {"duration_s", o.duration_s},
      {"hardware_threads", std::thread::hardware_concurrency()},
      {"force_reply_latency_ms", round_trip.summary(1e3)},
      {"server_reply_time_us", server_time.summary(1e6)},
      {"commands_sent", sent},
      {"commands_coalesced", coalesced},
      {"replies_received", received},
      {"replies_missing", sent - received},
      {"commands_rejected", rejected},
      {"frame_interval_ms", interval.summary(1e3)},
      {"frames_received", frames},
      {"frames_expected", expected_frames},
      {"frame_ratio", expected_frames > 0 ? static_cast<double>(frames) / expected_frames : 0},
      {"frames_dropped_by_server", dropped},
      {"frames_skipped_by_rate", skipped},
      {"bytes_per_vertex", vertices > 0 ? bytes / vertices : 0},
      {"real_time_factor", rtf_json},
      {"errors", errors.json()},
      // A drained or migrated host: how often the clients went on elsewhere, and where they ended.
      {"reconnects",
       {{"tool_streams", tool_reconnects},
        {"subscriptions", subscription_reconnects},
        {"host_switches", host_switches.load()},
        {"final_host", client.address()}}},
  };
}

std::vector<std::string> check_thresholds(const nlohmann::json& r, const LoadThresholds& t) {
  std::vector<std::string> crossed;
  auto number = [](const nlohmann::json& j, double fallback) {
    return j.is_number() ? j.get<double>() : fallback;
  };
  if (t.max_reply_p99_ms >= 0) {
    const double p99 = number(r["force_reply_latency_ms"].value("p99", nlohmann::json()), 0);
    if (p99 > t.max_reply_p99_ms)
      crossed.push_back("force reply p99 " + std::to_string(p99) + " ms > " +
                        std::to_string(t.max_reply_p99_ms));
  }
  if (t.max_replies_missing >= 0 && r["replies_missing"].get<long>() > t.max_replies_missing)
    crossed.push_back("replies missing " + r["replies_missing"].dump() + " > " +
                      std::to_string(t.max_replies_missing));
  if (t.max_errors >= 0 && r["errors"]["total"].get<long>() > t.max_errors)
    crossed.push_back("errors " + r["errors"]["total"].dump() + " > " +
                      std::to_string(t.max_errors));
  if (t.min_real_time_factor >= 0) {
    const double rtf = number(r["real_time_factor"].value("min", nlohmann::json()), 0);
    if (rtf < t.min_real_time_factor)
      crossed.push_back("real-time factor min " + std::to_string(rtf) + " < " +
                        std::to_string(t.min_real_time_factor));
  }
  if (t.min_frame_ratio >= 0 && r["frame_ratio"].get<double>() < t.min_frame_ratio)
    crossed.push_back("frames received/expected " + r["frame_ratio"].dump() + " < " +
                      std::to_string(t.min_frame_ratio));
  return crossed;
}

}  // namespace softbody::client
