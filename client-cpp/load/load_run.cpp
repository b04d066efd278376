#include "client-cpp/load/load_run.h"

#include <algorithm>
#include <atomic>
#include <cmath>
#include <condition_variable>
#include <cstdio>
#include <mutex>
#include <thread>

#include "client-cpp/client/client.h"
#include "client-cpp/haptics/histogram.h"
#include "client-cpp/load/error_counter.h"
#include "client-cpp/load/haptic_client.h"

namespace softbody::client {

namespace v1 = softbody::v1;
using Clock = LoadClock;

namespace {

struct SubscriberResult {
  Histogram interval;
  std::vector<double> delay_s;  // arrival (client clock) minus the step's end (server clock)
  long frames = 0, dropped = 0, skipped = 0;
  double bytes = 0, vertices = 0;
};

// A loopback server shares this machine's monotonic clock, so a frame's latency from the end of
// its step to its arrival is measured exactly; across machines only its variation is.
bool on_this_host(const std::string& address) {
  const std::string host = address.substr(0, address.rfind(':'));
  return host == "127.0.0.1" || host == "localhost" || host == "[::1]" || host == "::1";
}

double seconds_of(Clock::time_point t) {
  return std::chrono::duration<double>(t.time_since_epoch()).count();
}

// Prints a line each interval until stopped: what users felt in the last interval.
class ProgressLine {
 public:
  ProgressLine(std::ostream& out, double interval_s, int sessions, LiveCounters& live,
               const ErrorCounter& errors, double deadline_s)
      : out_(out), live_(live), errors_(errors) {
    if (interval_s <= 0) return;
    thread_ = std::thread([this, interval_s, sessions, deadline_s] {
      const auto start = Clock::now();
      auto previous = start;
      long ticks0 = 0, misses0 = 0, replies0 = 0, frames0 = 0;
      std::unique_lock lock(mutex_);
      for (int k = 1;; ++k) {
        const auto at = start + std::chrono::duration_cast<Clock::duration>(
                                    std::chrono::duration<double>(k * interval_s));
        // The last line covers the part of an interval before the stop.
        const bool last = stop_cv_.wait_until(lock, at, [this] { return stopped_; });
        const auto now = Clock::now();
        const double span = std::chrono::duration<double>(now - previous).count();
        const long ticks = live_.ticks.load(), misses = live_.deadline_misses.load(),
                   replies = live_.replies.load(), frames = live_.frames.load();
        const double oldest = live_.oldest_force_s.exchange(0);
        char line[256];
        std::snprintf(line, sizeof line,
                      "load: %5.1f s  %d sessions  replies/s %7.0f  frames/s %6.0f  force age "
                      "max %6.1f ms  >%g ms %5.2f %%  errors %ld",
                      std::chrono::duration<double>(now - start).count(), sessions,
                      (replies - replies0) / span, (frames - frames0) / span, 1e3 * oldest,
                      1e3 * deadline_s,
                      ticks > ticks0 ? 100.0 * (misses - misses0) / (ticks - ticks0) : 0.0,
                      errors_.json()["total"].get<long>());
        if (span > 0.05 || !last) out_ << line << std::endl;
        if (last) return;
        ticks0 = ticks, misses0 = misses, replies0 = replies, frames0 = frames;
        previous = now;
      }
    });
  }
  ~ProgressLine() {
    {
      std::lock_guard lock(mutex_);
      stopped_ = true;
    }
    stop_cv_.notify_all();
    if (thread_.joinable()) thread_.join();
  }

 private:
  std::ostream& out_;
  LiveCounters& live_;
  const ErrorCounter& errors_;
  std::mutex mutex_;
  std::condition_variable stop_cv_;
  bool stopped_ = false;
  std::thread thread_;
};

// One measured stage over the given sessions: subscribers and haptic clients for warm-up plus
// duration, then the report.
nlohmann::json measure_stage(Client& client, const std::vector<v1::SessionInfo>& sessions,
                             const LoadOptions& o, std::ostream& progress,
                             std::atomic<long>& host_switches) {
  ErrorCounter errors;
  LiveCounters live;
  const Clock::time_point epoch = Clock::now();
  auto after = [](Clock::time_point t, double s) {
    return t + std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(s));
  };
  const MeasuredWindow m{after(epoch, o.warmup_s), after(epoch, o.warmup_s + o.duration_s)};

  const size_t n = sessions.size();
  std::vector<std::vector<SubscriberResult>> subs(n);
  std::vector<std::unique_ptr<StateSubscription>> subscriptions;
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
          [&result, &m, &live, last](const DecodedFrame& f) {
            // Only this subscription's thread touches `result` until it is stopped.
            live.frames.fetch_add(1, std::memory_order_relaxed);
            if (m.measuring(f.received_at)) {
              if (*last >= m.from)
                result.interval.record(
                    std::chrono::duration<double>(f.received_at - *last).count());
              result.delay_s.push_back(seconds_of(f.received_at) - f.server_time_s);
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
        run_haptic_client(client, sessions[i], o, phase, m, epoch, haptics[i][h], errors, live);
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
  std::vector<double> sim0, sim1;
  double wall = 0;
  {
    ProgressLine line(progress, o.progress_interval_s, static_cast<int>(n), live, errors,
                      o.deadline_s);
    std::this_thread::sleep_until(m.from);
    progress << "load: measuring " << n << " sessions" << std::endl;
    sim0 = sim_times();
    const Clock::time_point wall0 = Clock::now();
    std::this_thread::sleep_until(m.until);
    sim1 = sim_times();
    wall = std::chrono::duration<double>(Clock::now() - wall0).count();
    for (auto& t : threads) t.join();
  }
  for (auto& s : subscriptions) s->stop();

  Histogram round_trip, server_time, force_age, interval, frame_latency;
  long sent = 0, received = 0, superseded = 0, coalesced = 0, rejected = 0, frames = 0, dropped = 0;
  long skipped = 0, ticks = 0, misses = 0, overruns = 0;
  long tool_reconnects = 0, subscription_reconnects = 0;
  for (const auto& s : subscriptions) subscription_reconnects += s->reconnects();
  double bytes = 0, vertices = 0, expected_frames = 0, possible_frames = 0;
  std::vector<double> rtf;
  const bool same_clock = on_this_host(client.address());
  double clock_offset = 0;  // across hosts: the fastest frame's delay counts as 0
  if (!same_clock) {
    clock_offset = INFINITY;
    for (const auto& per_session : subs)
      for (const auto& s : per_session)
        for (double d : s.delay_s) clock_offset = std::min(clock_offset, d);
  }
  for (size_t i = 0; i < n; ++i) {
    rtf.push_back((sim1[i] - sim0[i]) / wall);
    for (const auto& h : haptics[i]) {
      round_trip.merge(h.round_trip);
      server_time.merge(h.server_time);
      force_age.merge(h.force_age);
      sent += h.sent;
      received += h.received;
      superseded += h.superseded;
      coalesced += h.coalesced;
      rejected += h.rejected;
      tool_reconnects += h.reconnects;
      ticks += h.ticks;
      misses += h.deadline_misses;
      overruns += h.generator_overruns;
    }
    const double step_rate = 1 / sessions[i].settings().dt();
    for (const auto& s : subs[i]) {
      interval.merge(s.interval);
      for (double d : s.delay_s) frame_latency.record(std::max(0.0, d - clock_offset));
      frames += s.frames;
      dropped += s.dropped;
      skipped += s.skipped;
      bytes += s.bytes;
      vertices += s.vertices;
      expected_frames += std::min(o.frame_rate_hz, step_rate) * o.duration_s;
      // A session that steps slower than real time has fewer frames to send: what it could
      // have sent at the step rate it reached tells streaming loss apart from a slow host.
      possible_frames +=
          std::min(o.frame_rate_hz, std::clamp(rtf.back(), 0.0, 1.0) * step_rate) * o.duration_s;
    }
  }

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
      {"sessions", static_cast<int>(n)},
      {"subscribers_per_session", o.subscribers_per_session},
      {"haptic_per_session", o.haptic_per_session},
      {"rate_hz", o.rate_hz},
      {"frame_rate_hz", o.frame_rate_hz},
      {"duration_s", o.duration_s},
      {"hardware_threads", std::thread::hardware_concurrency()},
      // What a haptic user feels: at every tick of each client's command clock, the age of the
      // newest force it holds; a tick misses its deadline when that force is older than it.
      {"force_age_ms", force_age.summary(1e3)},
      {"deadline_ms", 1e3 * o.deadline_s},
      {"haptic_ticks", ticks},
      {"deadline_misses", misses},
      {"deadline_miss_rate", ticks > 0 ? static_cast<double>(misses) / ticks : 0},
      {"generator_overruns", overruns},
      {"force_reply_latency_ms", round_trip.summary(1e3)},
      {"server_reply_time_us", server_time.summary(1e6)},
      {"commands_sent", sent},
      {"commands_coalesced", coalesced},
      {"replies_received", received},
      {"replies_superseded", superseded},
      {"replies_missing", sent - received - superseded},
      {"commands_rejected", rejected},
      // From the end of a step on the server to the frame's arrival here.
      {"frame_latency_ms", frame_latency.summary(1e3)},
      {"frame_latency_clock", same_clock
                                  ? "exact (the server shares this machine's clock)"
                                  : "relative to the fastest frame (another machine's clock)"},
      {"frame_interval_ms", interval.summary(1e3)},
      {"frames_received", frames},
      {"frames_expected", expected_frames},
      {"frame_ratio", expected_frames > 0 ? static_cast<double>(frames) / expected_frames : 0},
      {"frames_possible", possible_frames},
      {"frame_ratio_of_possible",
       possible_frames > 0 ? static_cast<double>(frames) / possible_frames : 0},
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

  const std::vector<int> stages = o.ramp.empty() ? std::vector<int>{o.sessions} : o.ramp;
  std::vector<v1::SessionInfo> sessions;
  nlohmann::json reports = nlohmann::json::array();
  auto delete_all = [&] {
    if (!o.keep_sessions)
      for (const auto& s : sessions) client.delete_session(s.id());
  };
  for (int count : stages) {
    std::string refused;
    while (static_cast<int>(sessions.size()) < count) {
      auto created = client.create_session(o.scene, o.overrides);
      if (!created) {
        refused = "CreateSession: " + created.error().to_string();
        break;
      }
      sessions.push_back(*created);
    }
    if (!refused.empty()) {
      if (reports.empty()) {  // nothing measured: the run could not start
        delete_all();
        throw std::runtime_error(refused);
      }
      progress << "load: the ramp ends at " << count << " sessions: " << refused << std::endl;
      reports.push_back({{"sessions", count}, {"refused", refused}});
      break;
    }
    progress << "load: " << count << " sessions of '" << o.scene << "' on " << o.server << ", "
             << o.subscribers_per_session << " subscribers and " << o.haptic_per_session
             << " haptic clients each, " << o.warmup_s << " s warm-up + " << o.duration_s
             << " s measured" << std::endl;
    reports.push_back(measure_stage(client, sessions, o, progress, host_switches));
  }
  delete_all();
  if (o.ramp.empty()) return reports[0];
  return {{"tool", "softbody-load"},
          {"server", o.server},
          {"scene", o.scene},
          {"ramp", o.ramp},
          {"stages", reports}};
}

}  // namespace softbody::client
