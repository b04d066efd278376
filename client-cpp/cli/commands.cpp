#include "client-cpp/cli/commands.h"

#include <google/protobuf/util/json_util.h>

#include <atomic>
#include <csignal>
#include <cstdio>
#include <iostream>
#include <thread>

#include "client-cpp/client/mesh_upload.h"
#include "client-cpp/devices/device_factory.h"
#include "client-cpp/devices/recording.h"
#include "client-cpp/devices/vector_text.h"

namespace softbody::client::cli {

namespace v1 = softbody::v1;
using Clock = std::chrono::steady_clock;

namespace {

std::atomic<bool> interrupted{false};

void on_interrupt(int) {
  interrupted = true;
}

void catch_interrupts() {
  std::signal(SIGINT, on_interrupt);
  std::signal(SIGTERM, on_interrupt);
}

int fail(const Error& e) {
  std::cerr << "softbody-client: " << e.to_string() << '\n';
  return 1;
}

std::string to_json(const google::protobuf::Message& m) {
  std::string out;
  google::protobuf::util::JsonPrintOptions o;
  o.add_whitespace = true;
  o.preserve_proto_field_names = true;
  (void)google::protobuf::util::MessageToJsonString(m, &out, o);
  return out;
}

const char* status_name(v1::SessionStatus s) {
  return s == v1::SESSION_STATUS_PAUSED ? "paused" : "running";
}

bool sleep_interruptible(double seconds) {
  const auto until = Clock::now() + std::chrono::duration_cast<Clock::duration>(
                                        std::chrono::duration<double>(seconds));
  while (Clock::now() < until) {
    if (interrupted) return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  return !interrupted;
}

}  // namespace

Result<double> mesh_tool_reach_below(Client& client, const std::string& name) {
  auto tools = client.list_tool_meshes();
  if (!tools) return tools.error();
  std::string available;
  for (const auto& t : *tools) {
    if (t.name() != name) {
      available += (available.empty() ? "" : ", ") + t.name();
      continue;
    }
    // The lowest vertex below the pose, the tool unturned (a device's rest orientation).
    double lowest = 0;
    const auto& xyz = t.geometry().mesh_vertices();  // 3 per vertex
    for (int k = 1; k < xyz.size(); k += 3) lowest = std::min(lowest, xyz[k]);
    return -lowest;
  }
  Error e;
  e.code = grpc::StatusCode::INVALID_ARGUMENT;
  e.message = "--tool-mesh: the server offers no tool surface '" + name +
              "' (available: " + (available.empty() ? "none" : available) + ")";
  return e;
}

int list(Client& client, bool json) {
  auto catalog = client.scene_catalog();  // the scenes and the tool surfaces, one call
  if (!catalog) return fail(catalog.error());
  const auto& scenes = catalog->scenes();
  const auto& tools = catalog->tool_meshes();
  auto sessions = client.list_sessions();
  if (!sessions) return fail(sessions.error());
  if (json) {
    v1::ListSessionsResponse s;
    for (const auto& info : *sessions) *s.add_sessions() = info;
    std::cout << "{\"scenes\": " << to_json(*catalog) << ", \"sessions\": " << to_json(s) << "}\n";
    return 0;
  }
  std::cout << "scenes:\n";
  for (const auto& e : scenes) std::cout << "  " << e.name() << "  " << e.description() << '\n';
  std::cout << "tool surfaces (haptic --tool-mesh NAME):\n";
  if (tools.empty()) std::cout << "  (none)\n";
  for (const auto& e : tools) std::cout << "  " << e.name() << "  " << e.description() << '\n';
  std::cout << "sessions:\n";
  if (sessions->empty()) std::cout << "  (none)\n";
  for (const auto& s : *sessions) {
    std::printf("  %s  %-12s %-8s %6d vertices  t=%.2f s  rtf %.2f  %d subscribers  %d tools  %s\n",
                s.id().c_str(), s.scene_name().c_str(), status_name(s.status()), s.num_vertices(),
                s.last_step().sim_time(), s.last_step().real_time_factor(), s.subscribers(),
                s.tools(), s.label().c_str());
  }
  return 0;
}

int create(Client& client, const CreateOptions& c) {
  Result<v1::SessionInfo> made = Error{};
  if (c.mesh.empty()) {
    if (c.scene.empty()) {
      std::cerr << "softbody-client: create needs --scene NAME|FILE.json or --mesh FILE\n";
      return 1;
    }
    made = client.create_session(c.scene, c.overrides, c.paused, c.label);
  } else {
    if (!c.scene.empty() && !c.scene.ends_with(".json")) {
      std::cerr << "softbody-client: with --mesh, --scene must be a local .json file (its mesh "
                   "section gives the transforms), not '"
                << c.scene << "'\n";
      return 1;
    }
    auto upload = read_mesh_upload(c.mesh, c.scene);
    if (!upload) return fail(upload.error());
    v1::CreateSessionRequest request;
    *request.mutable_uploaded_mesh() = *upload;
    for (const auto& o : c.overrides) request.add_overrides(o);
    request.set_start_paused(c.paused);
    request.set_label(c.label);
    made = client.create_session(request);
  }
  if (!made) return fail(made.error());
  // On standard error: standard output stays the id (or JSON) that scripts read.
  for (const std::string& warning : made->warnings())
    std::cerr << "softbody-client: warning: " << warning << '\n';
  if (c.json)
    std::cout << to_json(*made) << '\n';
  else
    std::cout << made->id() << '\n';
  return 0;
}

int remove(Client& client, const std::string& id) {
  auto r = client.delete_session(id);
  return r ? 0 : fail(r.error());
}

int migrate(Client& client, const std::string& id, const std::string& target) {
  auto r = client.migrate(id, target);
  if (!r) return fail(r.error());
  std::printf("%s  moved to %s  (browser: %s)  continues from step %lld\n", id.c_str(),
              r->moved().grpc_address().c_str(), r->moved().http_url().c_str(),
              static_cast<long long>(r->step()));
  return 0;
}

int status(Client& client, bool json) {
  auto r = client.server_status();
  if (!r) return fail(r.error());
  if (json) {
    google::protobuf::util::JsonPrintOptions options;
    options.add_whitespace = true;
    options.always_print_primitive_fields = true;
    std::string text;
    (void)google::protobuf::util::MessageToJsonString(*r, &text, options);
    std::printf("%s", text.c_str());
    return 0;
  }
  std::printf("%s  %s  sessions %d/%d (%d running)  load %.2f of %.2f cores  free %d  %s\n",
              r->host().c_str(), r->grpc_address().c_str(), r->sessions(), r->max_sessions(),
              r->running_sessions(), r->load_cores(), r->capacity_cores(), r->free_sessions(),
              r->accepting() ? "accepting" : ("not accepting: " + r->refusal()).c_str());
  return 0;
}

int control(Client& client, const std::string& id, const std::string& action, int steps) {
  const v1::ControlAction a = action == "pause"    ? v1::CONTROL_ACTION_PAUSE
                              : action == "resume" ? v1::CONTROL_ACTION_RESUME
                              : action == "reset"  ? v1::CONTROL_ACTION_RESET
                                                   : v1::CONTROL_ACTION_STEP;
  auto r = client.control(id, a, a == v1::CONTROL_ACTION_STEP ? steps : 0);
  if (!r) return fail(r.error());
  std::printf("%s  %s  step %lld  t=%.3f s\n", r->id().c_str(), status_name(r->status()),
              static_cast<long long>(r->last_step().step()), r->last_step().sim_time());
  return 0;
}

int watch(Client& client, const WatchOptions& w) {
  catch_interrupts();
  // Asked first so that a wrong id or an unreachable server fails at once, clearly.
  if (auto session = client.get_session(w.session); !session) return fail(session.error());
  struct Window {
    long frames = 0, dropped = 0, skipped = 0;
    double bytes = 0, vertices = 0;
    v1::StepStatistics last;
  };
  std::mutex mutex;
  Window window, total;
  SubscriptionOptions o;
  o.max_rate_hz = w.rate_hz;
  o.give_up_after = std::chrono::milliseconds(static_cast<long>(1e3 * w.reconnect_for_s));
  o.on_retry = [](const Error& e, std::chrono::milliseconds backoff) {
    std::fprintf(stderr, "softbody-client: %s; reconnecting in %.1f s\n", e.to_string().c_str(),
                 1e-3 * static_cast<double>(backoff.count()));
  };
  std::optional<Error> ended;
  auto subscription = client.subscribe(
      w.session, o,
      [&](const DecodedFrame& f) {
        std::lock_guard lock(mutex);
        for (Window* x : {&window, &total}) {
          ++x->frames;
          x->dropped += f.frames_dropped;
          x->skipped += f.frames_skipped;
          x->bytes += static_cast<double>(f.encoded_bytes);
          x->vertices += static_cast<double>(f.positions.size() / 3);
          x->last = f.stats;
        }
      },
      [&](const Error& e) {
        std::lock_guard lock(mutex);
        ended = e;
      });
  const Clock::time_point start = Clock::now();
  for (;;) {
    const bool go_on = sleep_interruptible(1.0);
    {
      std::lock_guard lock(mutex);
      if (ended && ended->code != grpc::StatusCode::CANCELLED) {
        const Error why = *ended;
        subscription.reset();
        return fail(why);
      }
      const auto& s = total.last;  // a second without frames shows where it stopped
      std::fprintf(stderr,
                   "step %7lld  t=%8.2f s  %3ld frames/s  step %6.2f ms  %3d it  res %.1e  "
                   "rtf %.2f  %.2f B/vertex  %ld skipped by rate  %ld dropped  %d contacts\n",
                   static_cast<long long>(s.step()), s.sim_time(), window.frames, s.step_ms(),
                   s.iterations(), s.residual(), s.real_time_factor(),
                   window.vertices > 0 ? window.bytes / window.vertices : 0.0, window.skipped,
                   window.dropped, s.contacts());
      window = Window{};
    }
    if (!go_on) break;
    if (w.duration_s > 0 &&
        std::chrono::duration<double>(Clock::now() - start).count() >= w.duration_s)
      break;
  }
  subscription->stop();
  if (w.json) {
    const double elapsed = std::chrono::duration<double>(Clock::now() - start).count();
    nlohmann::json j = {{"session", w.session},
                        {"seconds", elapsed},
                        {"frames", total.frames},
                        {"frames_per_s", static_cast<double>(total.frames) / elapsed},
                        {"frames_dropped_by_server", total.dropped},
                        {"frames_skipped_by_rate", total.skipped},
                        {"bytes_per_vertex", total.vertices > 0 ? total.bytes / total.vertices : 0},
                        {"reconnects", subscription->reconnects()},
                        {"last_step", total.last.step()},
                        {"last_step_ms", total.last.step_ms()},
                        {"last_real_time_factor", total.last.real_time_factor()}};
    std::cout << j.dump(2) << '\n';
  }
  return 0;
}

int haptic(Client& client, const HapticCommandOptions& h) {
  catch_interrupts();
  auto session = client.get_session(h.session);
  if (!session) return fail(session.error());
  auto topology = client.topology(h.session);
  if (!topology) return fail(topology.error());
  HapticLoopOptions options = h.loop;
  // How far the tool reaches below its pose: where it starts above the body.
  double reach_below = options.tool.radius;
  if (options.tool.shape == v1::TOOL_SHAPE_MESH) {
    auto below = mesh_tool_reach_below(client, options.tool.tool_mesh);
    if (!below) return fail(below.error());
    reach_below = *below;
  }
  std::unique_ptr<HapticDevice> device;
  try {
    if (!h.offset.empty())
      options.workspace.offset = parse_vec3_text(h.offset, "--offset " + h.offset);
    else if (device_has_own_frame(h.device))
      options.workspace.offset = home_point(*topology, reach_below);
    // The simulated pen without a script presses 3 times (12 s) and finishes, unless --duration
    // says how long to go on.
    device = make_device(
        h.device, default_pen_config(*topology, reach_below, 4, h.loop.duration_s > 0 ? 0 : 3));
    if (!h.record_path.empty())
      device = std::make_unique<RecordingDevice>(std::move(device), h.record_path);
  } catch (const std::exception& e) {
    std::cerr << "softbody-client: " << e.what() << '\n';
    return 1;
  }
  HapticLoop loop(*device, options);
  loop.connect(client, h.session);
  loop.start();
  std::fprintf(stderr, "haptic: %s at %.0f Hz on session %s\n", device->name().c_str(),
               h.loop.rate_hz, h.session.c_str());
  // Commands the server rejects are said at once; a limit it enforces (a quota: RESOURCE_EXHAUSTED)
  // ends the run, as a refused stream does, since every command beyond it gets no force.
  std::string rejection;
  bool over_limit = false, said_untouched = false;
  while (loop.running() && !interrupted) {
    if (!loop.wait(1.0)) {
      const HapticSnapshot s = loop.snapshot();
      // A tool that never touches anything feels nothing: say why it may be, once.
      if (!said_untouched && s.connected && s.ticks_in_contact == 0 &&
          s.ticks >= static_cast<long>(5 * h.loop.rate_hz)) {
        said_untouched = true;
        std::fprintf(stderr,
                     "softbody-client: the tool has touched nothing for %.0f s: it is at (%.3f, "
                     "%.3f, %.3f) m; at rest the body spans x [%.3f, %.3f], y [%.3f, %.3f], z "
                     "[%.3f, %.3f] m. The body may have moved away (a soft body can sag or topple "
                     "under gravity: see 'a body that does not stand' in docs/scenes.md), or the "
                     "device works elsewhere (--offset X,Y,Z, sim:start=X,Y,Z)\n",
                     static_cast<double>(s.ticks) / h.loop.rate_hz, s.tool_position[0],
                     s.tool_position[1], s.tool_position[2], topology->bounds_min[0],
                     topology->bounds_max[0], topology->bounds_min[1], topology->bounds_max[1],
                     topology->bounds_min[2], topology->bounds_max[2]);
      }
      const long rejected = loop.rejected();
      std::fprintf(
          stderr,
          "t=%6.1f s  %6.0f Hz  rtt %6.2f ms  model age %6.1f ms  force %6.3f %6.3f %6.3f N"
          "  %d contacts%s%s\n",
          s.time_s, s.loop_rate_hz, s.round_trip_ms, s.model_age_ms, s.force[0], s.force[1],
          s.force[2], s.contacts,
          rejected > 0 ? ("  " + std::to_string(rejected) + " REJECTED").c_str() : "",
          s.connected ? "" : ("  DISCONNECTED " + s.link_error).c_str());
    }
    if (rejection.empty() && !(rejection = loop.first_rejection()).empty()) {
      over_limit = rejection.starts_with("RESOURCE_EXHAUSTED");
      std::fprintf(stderr, "softbody-client: the server rejects tool commands: %s%s\n",
                   rejection.c_str(), over_limit ? "; stopping" : "");
      if (over_limit) break;
    }
  }
  loop.stop();
  device.reset();  // closes a recording
  const nlohmann::json report = loop.report();
  if (rejection.empty()) rejection = loop.first_rejection();  // came in the last second
  if (h.json) {
    std::cout << report.dump(2) << '\n';
  } else {
    std::printf("loop: %ld ticks at %.1f Hz (%s), jitter p50 %.1f us p99 %.1f us max %.1f us\n",
                report["ticks"].get<long>(), report["achieved_rate_hz"].get<double>(),
                report["placement"].get<std::string>().c_str(),
                report["jitter_us"].value("p50", 0.0), report["jitter_us"].value("p99", 0.0),
                report["jitter_us"].value("max", 0.0));
    std::printf("replies: %ld of %ld, round trip p50 %.2f ms p99 %.2f ms; model age p50 %.1f ms\n",
                report["replies_received"].get<long>(), report["commands_sent"].get<long>(),
                report["round_trip_ms"].value("p50", 0.0),
                report["round_trip_ms"].value("p99", 0.0),
                report["model_age_ms"].value("p50", 0.0));
    std::printf("contact (%s): %ld of %ld ticks, largest force %.3f N%s\n",
                report["contact_model"].get<std::string>().c_str(),
                report["ticks_in_contact"].get<long>(), report["ticks"].get<long>(),
                report["largest_force_n"].get<double>(),
                report["ticks_in_contact"].get<long>() == 0 ? " (the tool touched nothing)" : "");
    std::printf("rejected by the server: %ld of %ld commands%s%s\n",
                report["commands_rejected"].get<long>(), report["commands_sent"].get<long>(),
                rejection.empty() ? "" : ", first: ", rejection.c_str());
  }
  // The statistics of what ran, then why it stopped early (or what the server refused).
  if (auto failure = loop.failure()) return fail(*failure);
  if (const long rejected = report["commands_rejected"].get<long>(); rejected > 0) {
    std::cerr << "softbody-client: " << rejection << " (" << rejected << " of "
              << report["commands_sent"].get<long>() << " tool commands rejected"
              << (over_limit ? "; the run stopped there" : "") << ")\n";
    return 1;
  }
  return 0;
}

}  // namespace softbody::client::cli
