// Starts softbody-server (or uses --server), creates N sessions, and drives each with one haptic
// client sending tool commands at a fixed rate (a sphere oscillating into the body) and one state
// subscriber; prints one JSON object: force-reply round trips (client-measured), replies missing,
// real-time factors, frames and encoded bytes per vertex.
#include "bench/serve_benchmark.h"

#include <atomic>
#include <cmath>
#include <iostream>
#include <mutex>
#include <nlohmann/json.hpp>
#include <thread>

#include "engine/parallel/statistics.h"
#include "server/server_process.h"
#include "softbody/v1/simulation_service.grpc.pb.h"

namespace softbody::bench {
namespace {

namespace v1 = softbody::v1;
using Clock = std::chrono::steady_clock;

struct ServeOptions {
  std::string server;  // empty: start one
  std::string scene = "knight";
  int sessions = 8;
  double haptic_rate = 1000;  // 0: no haptic clients
  double frame_rate = 60;     // 0: no subscribers
  double duration = 10;
  double warmup = 2;
  double error_bound = 1e-4;
  int workers = 0;
  std::vector<std::string> overrides;
};

struct HapticResult {
  std::vector<double> round_trip_ms, server_us;
  long sent = 0, received = 0, rejected = 0;
};

struct SubscriberResult {
  long frames = 0, dropped = 0;
  double bytes = 0, vertices = 0;
  double key_bytes = 0, key_vertices = 0;
};

double seconds_since(Clock::time_point t) {
  return std::chrono::duration<double>(Clock::now() - t).count();
}

// A sphere of 1.5 cm radius oscillating at 1 Hz along x through the body's side at 60 % height.
v1::ToolCommand command(const std::string& session, const v1::BoundingBox& box, std::uint64_t seq,
                        double t) {
  const double height = box.min().y() + 0.6 * (box.max().y() - box.min().y());
  const double amplitude = 0.25 * (box.max().x() - box.min().x());
  const double x = box.max().x() + 0.015 - amplitude * (1 - std::cos(2 * M_PI * t));
  v1::ToolCommand c;
  c.set_session_id(session);
  c.set_sequence(seq);
  c.set_client_time_s(t);
  c.mutable_pose()->mutable_position()->set_x(x);
  c.mutable_pose()->mutable_position()->set_y(height);
  c.mutable_velocity()->set_x(-amplitude * 2 * M_PI * std::sin(2 * M_PI * t));
  c.set_radius(0.015);
  c.set_mode(v1::TOOL_MODE_POKE);
  return c;
}

void run_haptic(v1::Simulation::Stub& stub, const v1::SessionInfo& session, const ServeOptions& o,
                Clock::time_point measure_from, Clock::time_point end, HapticResult& out) {
  grpc::ClientContext ctx;
  auto stream = stub.Interact(&ctx);
  const auto period = std::chrono::duration_cast<Clock::duration>(
      std::chrono::duration<double>(1.0 / o.haptic_rate));
  const long capacity = static_cast<long>(o.haptic_rate * (o.duration + o.warmup + 5)) + 16;
  std::vector<Clock::time_point> sent_at(static_cast<size_t>(capacity));
  std::atomic<long> sent{0};
  std::thread reader([&] {
    v1::ForceReply reply;
    while (stream->Read(&reply)) {
      const Clock::time_point now = Clock::now();
      const auto seq = static_cast<size_t>(reply.sequence());
      ++out.received;
      if (!reply.rejected().empty()) ++out.rejected;
      if (sent_at[seq] >= measure_from) {
        out.round_trip_ms.push_back(
            std::chrono::duration<double, std::milli>(now - sent_at[seq]).count());
        out.server_us.push_back(reply.server_time_us());
      }
    }
  });
  const Clock::time_point start = Clock::now();
  Clock::time_point next = start;
  for (std::uint64_t seq = 0; Clock::now() < end && static_cast<long>(seq) < capacity; ++seq) {
    std::this_thread::sleep_until(next);
    next += period;
    sent_at[seq] = Clock::now();
    if (!stream->Write(command(session.id(), session.rest_bounds(), seq, seconds_since(start))))
      break;
    sent = static_cast<long>(seq) + 1;
  }
  stream->WritesDone();
  reader.join();
  stream->Finish();
  out.sent = sent;
}

void run_subscriber(v1::Simulation::Stub& stub, const v1::SessionInfo& session,
                    const ServeOptions& o, Clock::time_point measure_from, Clock::time_point end,
                    SubscriberResult& out) {
  grpc::ClientContext ctx;
  v1::StreamStateRequest request;
  request.set_session_id(session.id());
  request.set_max_rate_hz(o.frame_rate);
  request.set_error_bound(o.error_bound);
  auto reader = stub.StreamState(&ctx, request);
  v1::StateFrame frame;
  while (reader->Read(&frame)) {
    const Clock::time_point now = Clock::now();
    if (now >= end) break;
    if (now < measure_from) continue;
    ++out.frames;
    out.dropped += frame.frames_dropped();
    const double bytes = static_cast<double>(frame.positions().size());
    out.bytes += bytes;
    out.vertices += frame.num_vertices();
    if (frame.positions().size() > 3 && frame.positions()[3] == 1) {  // a keyframe (codec kind 1)
      out.key_bytes += bytes;
      out.key_vertices += frame.num_vertices();
    }
  }
  ctx.TryCancel();
  reader->Finish();
}

nlohmann::json distribution(std::vector<double> v) {
  if (v.empty()) return {{"count", 0}};
  return {{"count", v.size()},
          {"p50", percentile(v, 0.5)},
          {"p90", percentile(v, 0.9)},
          {"p99", percentile(v, 0.99)},
          {"p999", percentile(v, 0.999)},
          {"max", *std::max_element(v.begin(), v.end())}};
}

int run(const ServeOptions& o) {
  std::unique_ptr<server::ServerProcess> own;
  std::string address = o.server;
  if (address.empty()) {
    std::vector<std::string> flags = {"--log-level", "warn", "--max-sessions",
                                      std::to_string(o.sessions + 1)};
    if (o.workers > 0) flags.insert(flags.end(), {"--workers", std::to_string(o.workers)});
    own = std::make_unique<server::ServerProcess>(SOFTBODY_SERVER, SOFTBODY_SCENES, flags);
    address = "127.0.0.1:" + std::to_string(own->grpc_port());
  }
  auto channel = grpc::CreateChannel(address, grpc::InsecureChannelCredentials());
  auto stub = v1::Simulation::NewStub(channel);
  std::vector<v1::SessionInfo> sessions(static_cast<size_t>(o.sessions));
  for (auto& s : sessions) {
    v1::CreateSessionRequest request;
    request.set_scene_name(o.scene);
    for (const auto& ov : o.overrides) request.add_overrides(ov);
    grpc::ClientContext ctx;
    const grpc::Status status = stub->CreateSession(&ctx, request, &s);
    if (!status.ok()) {
      std::cerr << "serve: CreateSession: " << status.error_message() << '\n';
      return 1;
    }
  }
  const Clock::time_point start = Clock::now();
  const auto measure_from =
      start + std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(o.warmup));
  const auto end = measure_from + std::chrono::duration_cast<Clock::duration>(
                                      std::chrono::duration<double>(o.duration));
  std::vector<HapticResult> haptics(sessions.size());
  std::vector<SubscriberResult> subscribers(sessions.size());
  std::vector<std::thread> threads;
  for (size_t i = 0; i < sessions.size(); ++i) {
    if (o.haptic_rate > 0)
      threads.emplace_back(
          [&, i] { run_haptic(*stub, sessions[i], o, measure_from, end, haptics[i]); });
    if (o.frame_rate > 0)
      threads.emplace_back(
          [&, i] { run_subscriber(*stub, sessions[i], o, measure_from, end, subscribers[i]); });
  }
  // Real-time factor of each session over the measured window: simulated / wall time.
  std::this_thread::sleep_until(measure_from);
  auto sim_times = [&] {
    std::vector<std::pair<double, double>> t;  // sim time, iteration cap
    for (const auto& s : sessions) {
      grpc::ClientContext ctx;
      v1::GetSessionRequest r;
      r.set_session_id(s.id());
      v1::SessionInfo info;
      stub->GetSession(&ctx, r, &info);
      t.emplace_back(info.last_step().sim_time(), info.settings().effective_max_iterations());
    }
    return t;
  };
  const auto t0 = sim_times();
  const Clock::time_point wall0 = Clock::now();
  std::this_thread::sleep_until(end);
  const auto t1 = sim_times();
  const double wall = seconds_since(wall0);
  for (auto& t : threads) t.join();

  std::vector<double> rtf, caps, round_trips, server_us;
  long sent = 0, received = 0, rejected = 0, frames = 0, dropped = 0;
  double bytes = 0, vertices = 0, key_bytes = 0, key_vertices = 0;
  for (size_t i = 0; i < sessions.size(); ++i) {
    rtf.push_back((t1[i].first - t0[i].first) / wall);
    caps.push_back(t1[i].second);
    const HapticResult& h = haptics[i];
    round_trips.insert(round_trips.end(), h.round_trip_ms.begin(), h.round_trip_ms.end());
    server_us.insert(server_us.end(), h.server_us.begin(), h.server_us.end());
    sent += h.sent;
    received += h.received;
    rejected += h.rejected;
    const SubscriberResult& s = subscribers[i];
    frames += s.frames;
    dropped += s.dropped;
    bytes += s.bytes;
    vertices += s.vertices;
    key_bytes += s.key_bytes;
    key_vertices += s.key_vertices;
  }
  nlohmann::json out = {
      {"benchmark", "serve"},
      {"scene", o.scene},
      {"sessions", o.sessions},
      {"haptic_rate_hz", o.haptic_rate},
      {"frame_rate_hz", o.frame_rate},
      {"duration_s", o.duration},
      {"hardware_threads", std::thread::hardware_concurrency()},
      {"force_reply_round_trip_ms", distribution(round_trips)},
      {"server_reply_time_us", distribution(server_us)},
      {"commands_sent", sent},
      {"replies_received", received},
      {"replies_missing", sent - received},
      {"commands_rejected", rejected},
      {"real_time_factor",
       {{"min", rtf.empty() ? 0 : *std::min_element(rtf.begin(), rtf.end())},
        {"per_session", rtf}}},
      {"iteration_cap_at_end", caps},
      {"frames_received", frames},
      {"frames_expected", o.frame_rate * o.duration * o.sessions},
      {"frames_dropped_by_server", dropped},
      {"error_bound_of_diagonal", o.error_bound},
      {"bytes_per_vertex", vertices > 0 ? bytes / vertices : 0},
      {"keyframe_bytes_per_vertex", key_vertices > 0 ? key_bytes / key_vertices : 0},
  };
  std::cout << out.dump(2) << std::endl;
  return 0;
}

}  // namespace

void add_serve_benchmark(CLI::App& app) {
  auto options = std::make_shared<ServeOptions>();
  auto* cmd = app.add_subcommand("serve", "load a server with haptic clients and subscribers");
  cmd->add_option("--server", options->server, "ADDR of a running server (default: start one)");
  cmd->add_option("--scene", options->scene, "scene of every session")->capture_default_str();
  cmd->add_option("--sessions", options->sessions, "sessions")->capture_default_str();
  cmd->add_option("--haptic-rate", options->haptic_rate,
                  "tool commands per second per session (0: none)")
      ->capture_default_str();
  cmd->add_option("--frame-rate", options->frame_rate, "subscriber frame rate (0: no subscribers)")
      ->capture_default_str();
  cmd->add_option("--duration", options->duration, "measured seconds")->capture_default_str();
  cmd->add_option("--warmup", options->warmup, "seconds before measuring")->capture_default_str();
  cmd->add_option("--error-bound", options->error_bound, "frame error bound (of the diagonal)")
      ->capture_default_str();
  cmd->add_option("--workers", options->workers, "server worker threads (0: per core)");
  cmd->add_option("--set", options->overrides, "scene override for every session");
  cmd->callback([options] {
    if (run(*options) != 0) throw std::runtime_error("serve benchmark failed");
  });
}

}  // namespace softbody::bench
