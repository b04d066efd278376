// softbody-client [--server ADDR] COMMAND: sessions, live statistics and the haptic loop from a
// terminal (docs/client-cpp.md).
#include <CLI/CLI.hpp>
#include <memory>

#include "client-cpp/cli/command_line.h"
#include "client-cpp/cli/commands.h"
#include "client-cpp/cli/security_flags.h"
#include "client-cpp/client/contact_model_names.h"
#include "client-cpp/net/delay_proxy.h"

int main(int argc, char** argv) {
  using namespace softbody::client;
  ClientOptions client_options;
  double deadline_s = 10;
  CLI::App app{"softbody-client: talk to a softbody-server"};
  app.require_subcommand(1);
  std::string servers = client_options.address;
  app.add_option("--server", servers,
                 "server address; a comma-separated list names other hosts of the cluster, "
                 "tried in turn when one goes away (e.g. drained: its sessions are restored by "
                 "the host asked; default: the SOFTBODY_SERVER environment variable, else this)")
      ->capture_default_str()
      ->envname("SOFTBODY_SERVER");
  app.add_flag("--follow-host", client_options.follow_host,
               "after 'create', talk to the host holding the session (clusters whose hosts run "
               "with --advertise-grpc behind one load-balanced address)");
  app.add_option("--deadline", deadline_s, "seconds per request")
      ->capture_default_str()
      ->check(CLI::Range(0.01, 3600.0));
  SecurityFlags security;
  add_security_flags(app, security);
  std::string network;
  app.add_option("--emulate-network", network,
                 "rtt=MS,jitter=MS,loss=FRACTION[,seed=N]: talk to the server through a local "
                 "proxy that delays, jitters and loses like a slow link (TCP loss: resent a "
                 "round trip later) to try haptics as a remote user gets them");

  bool json = false;
  auto* list_cmd = app.add_subcommand("list", "scenes and sessions");
  list_cmd->add_flag("--json", json, "JSON output");

  std::string scene, mesh, label;
  std::vector<std::string> overrides;
  bool paused = false;
  auto* create_cmd = app.add_subcommand("create", "create a session; prints its id");
  create_cmd->add_option("--scene", scene,
                         "scene name or .json scene file (with --mesh: a local .json whose mesh "
                         "section gives the transforms)");
  create_cmd->add_option("--mesh", mesh,
                         "upload this tetrahedral mesh (.msh .mesh .node/.ele .vtk .vtu); without "
                         "--scene it gets the default upload scene");
  create_cmd->add_option("--set", overrides,
                         "scene override KEY=VALUE, e.g. material.E=4e5 or /material/E=4e5 (a "
                         "dotted path or a JSON pointer; numbers index arrays; repeatable)");
  create_cmd->add_option("--label", label, "free text shown in listings");
  create_cmd->add_flag("--paused", paused, "start paused");
  create_cmd->add_flag("--json", json, "print the session as JSON");

  std::string id;
  auto* delete_cmd = app.add_subcommand("delete", "delete a session");
  delete_cmd->add_option("ID", id, "session id")->required();

  std::string action;
  int steps = 1;
  auto* control_cmd = app.add_subcommand("control", "pause, resume, reset or step a session");
  control_cmd->add_option("ID", id, "session id")->required();
  control_cmd->add_option("ACTION", action, "pause|resume|reset|step")
      ->required()
      ->check(CLI::IsMember({"pause", "resume", "reset", "step"}));
  control_cmd->add_option("--steps", steps, "steps for 'step'")->check(CLI::Range(1, 1000));

  static constexpr const char* kReconnectHelp =
      "keep reconnecting for this long when the server goes away [s]; then fail (0: at once)";
  cli::WatchOptions w;
  auto* watch_cmd = app.add_subcommand("watch", "subscribe and print live statistics each second");
  watch_cmd->add_option("ID", w.session, "session id")->required();
  watch_cmd->add_option("--duration", w.duration_s, "seconds (0: until interrupted)");
  watch_cmd->add_option("--rate", w.rate_hz, "frame rate to request [Hz]")->capture_default_str();
  watch_cmd->add_option("--reconnect-for", w.reconnect_for_s, kReconnectHelp)
      ->capture_default_str()
      ->check(CLI::NonNegativeNumber);
  watch_cmd->add_flag("--json", w.json, "print a JSON summary at the end");

  cli::HapticCommandOptions h;
  auto add_loop_options = [&h](CLI::App* cmd) {
    cmd->add_option("ID", h.session, "session id")->required();
    cmd->add_option("--device", h.device, "sim[:CONFIG] | replay:FILE | plugin:PATH[:CONFIG]")
        ->capture_default_str();
    cmd->add_option("--rate", h.loop.rate_hz, "loop rate [Hz]")
        ->capture_default_str()
        ->check(CLI::Range(500.0, 4000.0));
    cmd->add_option("--duration", h.loop.duration_s,
                    "seconds (0: until the device finishes: the simulated pen without a CONFIG "
                    "after 3 presses, 12 s; a replay at its end; sim:CONFIG without cycles= and "
                    "most plugins run until interrupted)")
        ->capture_default_str();
    cmd->add_option("--cpu", h.loop.placement.cpu, "core for the loop (-1: last, -2: any)")
        ->capture_default_str();
    cmd->add_flag("--realtime", h.loop.placement.realtime, "SCHED_FIFO priority (needs root)");
    cmd->add_option("--spin", h.loop.spin_s, "busy-wait before each tick [s]")
        ->capture_default_str();
    cmd->add_option("--max-force", h.loop.safety.max_force, "force clamp [N]")
        ->capture_default_str();
    cmd->add_option("--max-force-rate", h.loop.safety.max_force_rate, "force-rate clamp [N/s]")
        ->capture_default_str();
    cmd->add_option("--watchdog", h.loop.safety.watchdog_timeout_s,
                    "ramp the force down when no model came for this long beyond the link's "
                    "round trip [s]")
        ->capture_default_str();
    cmd->add_option("--swap-blend", h.loop.swap_blend_s,
                    "fade a new model's force difference in over at least this long [s], at most "
                    "0.1 N per tick (0: jump)")
        ->capture_default_str()
        ->check(CLI::Range(0.0, 1.0));
    cmd->add_flag("!--no-passivity", h.loop.passivity.enabled,
                  "do not keep the rendered contact passive (the body may then return more "
                  "energy than the hand put in)");
    cmd->add_option("--radius", h.loop.tool.radius, "tool sphere radius [m]")
        ->capture_default_str();
    cmd->add_option_function<std::string>(
        "--tool-mesh",
        [&h](const std::string& name) {
          h.loop.tool.shape = softbody::v1::TOOL_SHAPE_MESH;
          h.loop.tool.tool_mesh = name;
        },
        "hold a tool surface the server offers instead of the sphere (`softbody-client list` "
        "names them, e.g. blade); best with --contact constraint");
    cmd->add_option("--stiffness", h.loop.tool.contact_stiffness, "contact stiffness [N/m]")
        ->capture_default_str();
    cmd->add_option_function<std::string>(
           "--contact",
           [&h](const std::string& model) {
             h.loop.tool.contact_model = *softbody::client::contact_model_named(model);
           },
           "auto (default: constraint where the session's step solves it, else penalty), "
           "penalty (a spring of the stiffness above against the body's vertices) or constraint "
           "(non-penetration against its faces, Coulomb friction)")
        ->default_str("auto")
        ->check(CLI::IsMember(softbody::client::contact_model_names()));
    cmd->add_option("--mu", h.loop.tool.friction_coefficient,
                    "Coulomb friction coefficient of constraint contact")
        ->capture_default_str()
        ->check(CLI::Range(0.0, 10.0));
    cmd->add_option("--reach", h.loop.tool.candidate_reach,
                    "constraint contact: look this much further than the scene's margin for "
                    "surface the tool may reach before the next reply [m] (negative: automatic, "
                    "3 x recent peak speed x the link's delay; 0: the margin alone)")
        ->capture_default_str()
        ->check(CLI::Range(-1.0, 0.1));
    cmd->add_option_function<std::string>(
           "--contact-problem",
           [&h](const std::string& encoding) {
             h.loop.tool.compact_contact_problem = encoding == "upper-float";
           },
           "constraint contact: how replies carry the contact problem's compliance: upper-float "
           "(its upper triangle as float32, ~4x fewer bytes; default) or full (all doubles)")
        ->check(CLI::IsMember({"upper-float", "full"}));
    cmd->add_option("--offset", h.offset,
                    "X,Y,Z: the scene point [m] of the device's origin (default: 0,0,0 for sim "
                    "and replay; a plugin's origin hovers over the top of the body)");
    cmd->add_option("--scale", h.loop.workspace.scale, "device-to-scene position scale")
        ->capture_default_str();
    cmd->add_option("--force-scale", h.loop.workspace.force_scale, "scene-to-device force scale")
        ->capture_default_str();
    cmd->add_option("--reconnect-for", h.loop.give_up_after_s, kReconnectHelp)
        ->capture_default_str()
        ->check(CLI::NonNegativeNumber);
    cmd->add_flag("--json", h.json, "print the statistics as JSON");
  };
  auto* haptic_cmd = app.add_subcommand("haptic", "run the haptic loop and print its statistics");
  add_loop_options(haptic_cmd);
  auto* record_cmd = app.add_subcommand("record", "run the haptic loop and record the device");
  add_loop_options(record_cmd);
  record_cmd->add_option("--output", h.record_path, "CSV to write (replay:FILE plays it back)")
      ->required();

  std::string target;
  auto* migrate_cmd =
      app.add_subcommand("migrate", "move a live session to another host (same id, same state)");
  migrate_cmd->add_option("ID", id, "session id")->required();
  migrate_cmd->add_option("--to", target, "the receiving host's gRPC address (host:port)")
      ->required();
  auto* status_cmd =
      app.add_subcommand("status", "the host's capacity: sessions, load, free sessions");
  status_cmd->add_flag("--json", json, "JSON output");

  if (auto status = parse_command_line(app, argc, argv, "softbody-client")) return *status;
  client_options.set_servers(servers);
  try {
    apply_security_flags(security, client_options);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "softbody-client: %s\n", e.what());
    return 1;
  }
  client_options.on_switch = [](const std::string& address, const std::string& why) {
    std::fprintf(stderr, "softbody-client: now talking to %s: %s\n", address.c_str(), why.c_str());
  };
  client_options.deadline = std::chrono::milliseconds(static_cast<long>(deadline_s * 1000));
  std::unique_ptr<DelayProxy> proxy;  // lives as long as the client
  if (!network.empty()) {
    try {
      const NetworkConditions conditions = parse_network_conditions(network);
      proxy = std::make_unique<DelayProxy>(client_options.address, conditions);
      std::fprintf(stderr, "softbody-client: %s between here and %s (through %s)\n",
                   describe(conditions).c_str(), client_options.address.c_str(),
                   proxy->address().c_str());
      client_options.address = proxy->address();
      client_options.fallback_addresses.clear();  // only the first server is behind the proxy
      client_options.follow_host = false;
    } catch (const std::exception& e) {
      std::fprintf(stderr, "softbody-client: --emulate-network: %s\n", e.what());
      return 1;
    }
  }
  std::unique_ptr<Client> client_owner;
  try {
    client_owner = std::make_unique<Client>(client_options);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "softbody-client: %s\n", e.what());
    return 1;
  }
  Client& client = *client_owner;
  if (*list_cmd) return cli::list(client, json);
  if (*create_cmd) return cli::create(client, {scene, mesh, overrides, label, paused, json});
  if (*delete_cmd) return cli::remove(client, id);
  if (*control_cmd) return cli::control(client, id, action, steps);
  if (*watch_cmd) return cli::watch(client, w);
  if (*haptic_cmd || *record_cmd) return cli::haptic(client, h);
  if (*migrate_cmd) return cli::migrate(client, id, target);
  if (*status_cmd) return cli::status(client, json);
  return 1;
}
