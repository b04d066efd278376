// The haptic loop against a real server: a simulated pen, loaded through the plugin path and
// recorded, presses into the cantilever; the recording is replayed; the watchdog and the
// disconnect safety are exercised by freezing and stopping the server; the same press through a
// delaying proxy (a slow link) feels the same once held, with no clicks at model swaps.
#include <gtest/gtest.h>
#include <signal.h>

#include <cmath>
#include <filesystem>
#include <thread>

#include "client-cpp/client/client.h"
#include "client-cpp/devices/device_factory.h"
#include "client-cpp/devices/plugin_device.h"
#include "client-cpp/devices/recording.h"
#include "client-cpp/devices/replay_device.h"
#include "client-cpp/devices/simulated_pen.h"
#include "client-cpp/haptics/haptic_loop.h"
#include "client-cpp/net/delay_proxy.h"
#include "tests/client/client_test_support.h"

namespace softbody::client {
namespace {

using test::TestServer;
using testing::options_for;
using testing::temp_path;

// The top of the cantilever (rest) and the pen script pressing down at its middle.
struct Press {
  double top = 0;
  std::string config;
};

Press press_on(const Topology& topology, double radius, double period, int cycles) {
  Press p;
  p.top = topology.bounds_max[1];
  p.config = default_pen_config(topology, radius, period, cycles);
  return p;
}

// A session of `scene` (with the scene's overrides) and its topology, in `id` and `topology`.
void open_scene(Client& client, const std::string& scene, const std::vector<std::string>& overrides,
                std::string& id, Topology& topology) {
  auto session = client.create_session(scene, overrides);
  ASSERT_TRUE(session) << session.error().to_string();
  auto t = client.topology(session->id());
  ASSERT_TRUE(t) << t.error().to_string();
  id = session->id();
  topology = *t;
}

void open_cantilever(Client& client, const std::vector<std::string>& overrides, std::string& id,
                     Topology& topology) {
  open_scene(client, "cantilever", overrides, id, topology);
}

TEST(HapticLoop, PenPushesIntoTheBodyAndFeelsItPushBack) {
  TestServer server;
  Client client(options_for(server));
  // Without gravity the beam rests where its rest shape is until the pen touches it.
  std::string id;
  Topology topology;
  ASSERT_NO_FATAL_FAILURE(open_cantilever(client, {"gravity=[0,0,0]"}, id, topology));

  HapticLoopOptions o;
  o.tool.radius = 0.008;
  o.placement.cpu = -2;  // tests share the machine: do not pin
  const Press press = press_on(topology, o.tool.radius, 3.0, 1);
  const std::string recording = temp_path("press.csv");
  {
    // Through the plugin ABI (dlopen of the simulated pen's shared library), recorded.
    auto device = std::make_unique<RecordingDevice>(
        std::make_unique<PluginDevice>(SOFTBODY_SIM_PEN_PLUGIN, press.config), recording);
    HapticLoop loop(*device, o);
    loop.connect(client, id);
    loop.start();
    ASSERT_TRUE(loop.wait(30)) << "the pen's single press lasts 3 s";
    loop.stop();
    const auto report = loop.report();
    EXPECT_GT(report["ticks"].get<long>(), 1000);
    EXPECT_GT(report["commands_sent"].get<long>(), 1000);
    EXPECT_EQ(report["replies_missing"].get<long>(), 0) << report.dump(2);
    EXPECT_EQ(report["commands_rejected"].get<long>(), 0);
    // The loop's default contact (auto) on the cantilever's Newton step: constraint contact.
    EXPECT_EQ(report["contact_model"], "constraint");
    EXPECT_GT(report["model_age_ms"]["count"].get<long>(), 1000);
    EXPECT_EQ(report["placement"], "cpu unpinned, SCHED_OTHER");
  }
  const auto samples = load_recording(recording);
  ASSERT_GT(samples.size(), 2000u);

  // Penetration of the pen's sphere below the rest top surface, and the force it felt.
  struct Point {
    double depth, force_y, force_xz;
  };
  std::vector<Point> contact;
  double deepest_pen = 0;
  for (const auto& s : samples) {
    const double depth = press.top - (s.state.position[1] - o.tool.radius);
    deepest_pen = std::max(deepest_pen, depth);
    if (depth > 5e-4) contact.push_back({depth, s.force[1], std::hypot(s.force[0], s.force[2])});
  }
  ASSERT_GT(contact.size(), 300u) << "the pen must reach into the beam";
  // The force opposes the penetration (the pen moves down, the force points up) ...
  long opposing = 0;
  for (const auto& c : contact) opposing += c.force_y > 0;
  EXPECT_GT(static_cast<double>(opposing), 0.95 * static_cast<double>(contact.size()));
  // ... and grows with it: mean upward force in the deeper half of the depth range is larger
  // than in the shallower half, by more than the noise of a 1 kHz sampled contact.
  const double half = 0.5 * deepest_pen;
  double shallow = 0, deep = 0;
  long n_shallow = 0, n_deep = 0;
  for (const auto& c : contact) {
    if (c.depth < half)
      shallow += c.force_y, ++n_shallow;
    else
      deep += c.force_y, ++n_deep;
  }
  ASSERT_GT(n_shallow, 20);
  ASSERT_GT(n_deep, 20);
  EXPECT_GT(deep / n_deep, 1.5 * shallow / n_shallow);
  // The rendered force changes the pen's motion: the hand goes 8 mm past the top, the pen stops
  // short of that by about force / hand stiffness.
  const SimulatedPenConfig script = parse_simulated_pen_config(press.config);
  const double hand_depth = press.top - (script.hand.start[1] - script.hand.depth - o.tool.radius);
  EXPECT_LT(deepest_pen, hand_depth - 1e-3) << "pen " << deepest_pen << " hand " << hand_depth;
  // The force follows the tool between server steps (the SOFA #5158 class of bug): while in
  // contact it takes many more distinct values than the server made steps (100 per second).
  std::vector<double> values;
  for (const auto& c : contact) values.push_back(c.force_y);
  std::sort(values.begin(), values.end());
  const auto distinct = std::unique(values.begin(), values.end()) - values.begin();
  const double contact_seconds = static_cast<double>(contact.size()) * 1e-3;
  EXPECT_GT(static_cast<double>(distinct), 3 * 100 * contact_seconds);

  // Replaying the recording sends the same tool motion and feels the same contact.
  const std::string replayed = temp_path("replayed.csv");
  {
    auto device =
        std::make_unique<RecordingDevice>(std::make_unique<ReplayDevice>(recording), replayed);
    HapticLoop loop(*device, o);
    loop.connect(client, id);
    loop.start();
    ASSERT_TRUE(loop.wait(30));
  }
  const auto again = load_recording(replayed);
  ASSERT_GT(again.size(), 2000u);
  // Positions: the replayed run read the recording at its own tick times.
  ReplayDevice reference(samples);
  double worst = 0, max_force = 0, max_force_again = 0;
  for (const auto& s : again) {
    worst = std::max(worst, std::abs(s.state.position[1] - reference.read(s.t).position[1]));
    max_force_again = std::max(max_force_again, s.force[1]);
  }
  for (const auto& s : samples) max_force = std::max(max_force, s.force[1]);
  EXPECT_LT(worst, 1e-9);
  EXPECT_GT(max_force_again, 0.5 * max_force);
  EXPECT_LT(max_force_again, 2.0 * max_force);
  std::filesystem::remove(recording);
  std::filesystem::remove(replayed);
}

HapticSnapshot wait_for(const HapticLoop& loop, const std::function<bool(const HapticSnapshot&)>& p,
                        double seconds = 20) {
  const auto until = std::chrono::steady_clock::now() + std::chrono::duration<double>(seconds);
  HapticSnapshot s = loop.snapshot();
  while (!p(s) && std::chrono::steady_clock::now() < until) {
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
    s = loop.snapshot();
  }
  return s;
}

TEST(HapticLoop, WatchdogAndDisconnectZeroTheForce) {
  TestServer server;
  Client client(options_for(server));
  std::string id;
  Topology topology;
  ASSERT_NO_FATAL_FAILURE(open_cantilever(client, {}, id, topology));
  HapticLoopOptions o;
  o.placement.cpu = -2;
  o.reconnect = false;
  // A slow press that stays in contact for seconds.
  SimulatedPen pen(parse_simulated_pen_config(press_on(topology, o.tool.radius, 8.0, 0).config));
  HapticLoop loop(pen, o);
  loop.connect(client, id);
  loop.start();
  auto pressing = [](const HapticSnapshot& s) { return s.force[1] > 0.3; };
  ASSERT_TRUE(pressing(wait_for(loop, pressing))) << "the pen never pressed";

  // Freeze the server: the stream stays open, models stop coming; after 100 ms the watchdog
  // ramps the force to zero over 50 ms.
  ASSERT_EQ(kill(server.pid(), SIGSTOP), 0);
  const auto frozen_at = std::chrono::steady_clock::now();
  auto zero = [](const HapticSnapshot& s) { return s.force == Vec3{0, 0, 0}; };
  HapticSnapshot s = wait_for(loop, zero);
  const double took =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - frozen_at).count();
  EXPECT_TRUE(zero(s));
  EXPECT_TRUE(s.connected);
  EXPECT_GE(took, 0.1) << "the watchdog must not cut the force before its timeout";
  EXPECT_GT(s.model_age_ms, 100);

  // The server comes back: models flow again and the force returns.
  ASSERT_EQ(kill(server.pid(), SIGCONT), 0);
  s = wait_for(loop, pressing);
  EXPECT_TRUE(pressing(s)) << "force after the server resumed: " << s.force[1];

  // The server stops: the stream ends and the force is zero at once.
  EXPECT_EQ(server.terminate(), 0);
  s = wait_for(loop, [](const HapticSnapshot& x) { return !x.connected; });
  EXPECT_FALSE(s.connected);
  EXPECT_TRUE(zero(s));
  loop.stop();
  const auto report = loop.report();
  EXPECT_GT(report["watchdog_ticks"].get<long>(), 0);
  EXPECT_GT(report["ticks_disconnected"].get<long>(), 0);
}

// A tool surface the server offers (ToolShape MESH, here its blade, edge first) in the haptic
// loop with constraint contact: the commands name it and none is refused, the edge is held at the
// surface (the hand goes 8 mm further, the pen stops short of that), and the force the hand feels
// pushes the pen out and grows with depth.
TEST(HapticLoop, AToolSurfaceFromTheServerPressesWithConstraintContact) {
  TestServer server;
  Client client(options_for(server));
  std::string id;
  Topology topology;
  ASSERT_NO_FATAL_FAILURE(open_cantilever(client, {"gravity=[0,0,0]"}, id, topology));
  HapticLoopOptions o;
  o.placement.cpu = -2;
  o.tool.shape = v1::TOOL_SHAPE_MESH;
  o.tool.tool_mesh = "blade";
  o.tool.contact_model = v1::CONTACT_MODEL_CONSTRAINT;
  o.tool.friction_coefficient = 0.3;
  // The blade's edge runs through its pose: it starts the clearance above the top.
  const Press press = press_on(topology, 0.0, 3.0, 1);
  const std::string recording = temp_path("blade.csv");
  {
    auto device = std::make_unique<RecordingDevice>(
        std::make_unique<SimulatedPen>(parse_simulated_pen_config(press.config)), recording);
    HapticLoop loop(*device, o);
    loop.connect(client, id);
    loop.start();
    ASSERT_TRUE(loop.wait(30)) << "the pen's single press lasts 3 s";
    loop.stop();
    const auto report = loop.report();
    EXPECT_EQ(report["commands_rejected"].get<long>(), 0) << report["first_rejection"];
    EXPECT_GT(report["ticks_rendered_by_contact_problem"].get<long>(), 500);
  }
  const auto samples = load_recording(recording);
  std::filesystem::remove(recording);
  double deepest = 0, shallow = 0, deep = 0;
  long opposing = 0, in_contact = 0, n_shallow = 0, n_deep = 0;
  for (const auto& x : samples) deepest = std::max(deepest, press.top - x.state.position[1]);
  for (const auto& x : samples) {
    const double depth = press.top - x.state.position[1];
    if (depth < 5e-4) continue;
    ++in_contact;
    opposing += x.force[1] > 0;
    if (depth < 0.5 * deepest)
      shallow += x.force[1], ++n_shallow;
    else
      deep += x.force[1], ++n_deep;
  }
  ASSERT_GT(in_contact, 300) << "the blade must press into the beam";
  EXPECT_GT(static_cast<double>(opposing), 0.95 * static_cast<double>(in_contact));
  ASSERT_GT(n_shallow, 20);
  ASSERT_GT(n_deep, 20);
  EXPECT_GT(deep / static_cast<double>(n_deep), 1.5 * shallow / static_cast<double>(n_shallow));
  const SimulatedPenConfig script = parse_simulated_pen_config(press.config);
  const double hand_depth = press.top - (script.hand.start[1] - script.hand.depth);
  EXPECT_LT(deepest, hand_depth - 1e-3) << "pen " << deepest << " hand " << hand_depth;
}

// One press-hold-release of constraint contact through `conditions` (none: straight to the
// server): what the hand felt, from the device's recording.
struct LinkRun {
  nlohmann::json report;
  double steady_force = 0;  // mean upward force over the hold's last 1.5 s [N] (t in [3.5, 5])
  double delivered = 0;     // sum of F . dx over the cycle: energy the user gained [J]
  double absorbed = 0;      // the part the user put in (the negative terms, negated) [J]
  std::vector<std::pair<double, double>> upward;  // (t, the upward force felt) at every tick

  // The mean upward force over t in [from, to] [N].
  double mean_force(double from, double to) const {
    double sum = 0;
    long n = 0;
    for (const auto& [t, f] : upward)
      if (t >= from && t <= to) sum += f, ++n;
    return n > 0 ? sum / static_cast<double>(n) : 0;
  }
};

LinkRun press_through(const TestServer& server, const std::string& session,
                      const std::string& pen_config, const NetworkConditions& conditions,
                      HapticLoopOptions o) {
  LinkRun run;
  std::unique_ptr<DelayProxy> proxy;
  ClientOptions options = options_for(server);
  if (conditions.any()) {
    proxy = std::make_unique<DelayProxy>(options.address, conditions);
    options.address = proxy->address();
  }
  Client client(options);
  EXPECT_TRUE(client.control(session, v1::CONTROL_ACTION_RESET));
  o.placement.cpu = -2;
  o.tool.contact_model = v1::CONTACT_MODEL_CONSTRAINT;
  const std::string recording = temp_path("link.csv");
  {
    auto device = std::make_unique<RecordingDevice>(
        std::make_unique<SimulatedPen>(parse_simulated_pen_config(pen_config)), recording);
    HapticLoop loop(*device, o);
    loop.connect(client, session);
    loop.start();
    EXPECT_TRUE(loop.wait(60)) << "one 6 s press";
    loop.stop();
    run.report = loop.report();
  }
  const auto samples = load_recording(recording);
  std::filesystem::remove(recording);
  for (size_t k = 0; k + 1 < samples.size(); ++k) {
    double work = 0;
    for (int a = 0; a < 3; ++a)
      work +=
          samples[k].force[a] * (samples[k + 1].state.position[a] - samples[k].state.position[a]);
    run.delivered += work;
    run.absorbed += std::max(0.0, -work);
    run.upward.emplace_back(samples[k].t, samples[k].force[1]);
  }
  run.steady_force = run.mean_force(3.5, 5.0);
  return run;
}

// The pen script of the link and tissue tests: hover 1 s (the link's first replies arrive: before
// them the client knows nothing of the body, and a pen that presses at once sinks in unheld),
// press in 1 s, hold 3 s, release in 1 s.
std::string press_hold_release(const Topology& topology) {
  return default_pen_config(topology, 0.008, 2.0, 1) + ";hold=3;wait=1";
}

// A run over a link feels as the direct one: the held press within 10 %, no model swap changing
// the rendered force by more than 0.2 N in a tick, a loop that never waits for the link (one that
// did would tick at most every few round trips' worth of ms), never disconnected.
void expect_feels_as_direct(const LinkRun& run, const LinkRun& direct) {
  EXPECT_NEAR(run.steady_force, direct.steady_force, 0.1 * direct.steady_force);
  EXPECT_LE(run.report["model_swap_largest_rendered_step_n"].get<double>(), 0.2)
      << run.report.dump(2);
  EXPECT_LT(run.report["period_us"]["p99"].get<double>(), 20e3);
  EXPECT_EQ(run.report["ticks_disconnected"].get<long>(), 0);
}

// Passive: over the cycle the pen gains no energy (the controller's observer is the recording's
// own sum; 10 uJ covers its last tick's prediction and the CSV's rounding, against ~3-5 mJ the
// hand puts in).
void expect_passive(const LinkRun& run) {
  EXPECT_LE(run.delivered, 1e-5) << "round trip p50 " << run.report["round_trip_ms"]["p50"]
                                 << " ms: absorbed " << run.absorbed;
  EXPECT_GT(run.absorbed, 1e-3);
}

// Issue 22's slow links. 150 ms round trip +- 30 ms with 2 % TCP loss (each loss a round trip
// late, holding back what follows): the loop never waits for the link; held still, the hand
// feels the zero-delay force; a model swap never changes the rendered force by more than 0.2 N
// in a tick; over the press-release cycle the pen gains no energy. Before the commands carried a
// candidate reach, the pen sank past the surface a stale problem did not hold and the next reply
// pushed it out: +2.0 and +2.5 mJ in two of three such runs with the passivity controller on
// (bench/RESULTS.md). 300 ms +- 30 ms with neither the reach nor the controller: the stale
// models hand the pen energy (measured +3.8 mJ); with both, none. With 2 % loss too (round
// trips of 0.5-0.9 s) the held force is right and swaps do not click. On an idle machine that
// link is passive too since the reach has a floor for a resting hand and the watchdog allows the
// longest recent round trip (bench/RESULTS.md: 17 of 17 runs), but not asserted here: with a
// build and a busy loop beside the test one run of four gained +4.8 mJ (issue 22's note).
TEST(HapticLoop, OverASlowLinkAHeldPressFeelsTheSameSwapsDoNotClickAndNoEnergyIsGained) {
  TestServer server;
  Client client(options_for(server));
  std::string id;
  Topology topology;
  ASSERT_NO_FATAL_FAILURE(open_cantilever(client, {"gravity=[0,0,0]"}, id, topology));
  const std::string pen = press_hold_release(topology);
  HapticLoopOptions o;
  const LinkRun direct = press_through(server, id, pen, {}, o);
  const LinkRun lossy =
      press_through(server, id, pen, parse_network_conditions("rtt=150,jitter=30,loss=0.02"), o);
  const NetworkConditions far = parse_network_conditions("rtt=300,jitter=30");
  const LinkRun passive = press_through(server, id, pen, far, o);
  const LinkRun far_lossy =
      press_through(server, id, pen, parse_network_conditions("rtt=300,jitter=30,loss=0.02"), o);
  o.passivity.enabled = false;
  o.tool.candidate_reach = 0;
  const LinkRun active = press_through(server, id, pen, far, o);

  ASSERT_GT(direct.steady_force, 0.5) << "the pen must press the beam";
  EXPECT_GE(lossy.report["round_trip_ms"]["p50"].get<double>(), 120) << "the proxy is in the path";
  EXPECT_GE(passive.report["round_trip_ms"]["p50"].get<double>(), 270);
  for (const LinkRun* run : {&direct, &lossy, &passive, &far_lossy, &active})
    expect_feels_as_direct(*run, direct);
  // Without the reach the far link's models disagree by far more than 0.2 N (measured 4 N): the
  // blend is what keeps them from being felt. (With it they agree to about 0.2 N at most.)
  EXPECT_GT(active.report["model_swap_force_jump_n"]["max"].get<double>(), 0.2);
  // The reach followed the link: the pen's ~20 mm/s peak times a delay of a round trip and more.
  EXPECT_GT(lossy.report["largest_candidate_reach_m"].get<double>(), 1.5 * 0.015 * 0.12);
  EXPECT_EQ(active.report["largest_candidate_reach_m"].get<double>(), 0);
  // Passive; without the reach and the controller the far link is active.
  for (const LinkRun* run : {&direct, &lossy, &passive}) expect_passive(*run);
  // On the 300 ms links a command goes every 10 ms, not every tick (the force is the local
  // model's at every tick either way).
  for (const LinkRun* run : {&passive, &far_lossy})
    EXPECT_LT(run->report["commands_sent"].get<long>(), run->report["ticks"].get<long>() / 5);
  EXPECT_GT(active.delivered, 1e-3) << "absorbed " << active.absorbed;
}

// Issue 22's shorter links, each with +-30 ms jitter (less at 20 ms) and 2 % TCP loss: a
// trainee across a city (20 ms), a country (50 ms) or a continent (100 ms). As at 150 ms: the
// held press feels the zero-delay force within 10 %, no model swap changes the rendered force by
// more than 0.2 N in a tick, the loop never waits for the link, and over the press-release cycle
// the pen gains no energy.
TEST(HapticLoop, AtTwentyFiftyAndHundredMillisecondsAPressFeelsAsDirectAndIsPassive) {
  TestServer server;
  Client client(options_for(server));
  std::string id;
  Topology topology;
  ASSERT_NO_FATAL_FAILURE(open_cantilever(client, {"gravity=[0,0,0]"}, id, topology));
  const std::string pen = press_hold_release(topology);
  const HapticLoopOptions o;
  const LinkRun direct = press_through(server, id, pen, {}, o);
  ASSERT_GT(direct.steady_force, 0.5) << "the pen must press the beam";
  for (const char* link : {"rtt=20,jitter=10,loss=0.02", "rtt=50,jitter=30,loss=0.02",
                           "rtt=100,jitter=30,loss=0.02"}) {
    SCOPED_TRACE(link);
    const NetworkConditions conditions = parse_network_conditions(link);
    const LinkRun run = press_through(server, id, pen, conditions, o);
    EXPECT_GE(run.report["round_trip_ms"]["p50"].get<double>(), 0.8e3 * conditions.round_trip_s)
        << "the proxy is in the path";
    expect_feels_as_direct(run, direct);
    expect_passive(run);
  }
}

// Issue 21: a trainee pressing a liver feels it creep. The simulated pen presses the liver-creep
// slab (three Prony terms, tau 0.05, 0.5 and 4 s; gravity off so it does not creep under its own
// weight) 12 mm in 1 s and holds it 3 s: under the held tool the tissue keeps giving way, and the
// force the hand feels relaxes. The same slab made elastic (one negligible Prony term, the same
// long-term modulus and integrator) holds its force.
TEST(HapticLoop, PressingViscoelasticTissueTheHandFeelsItRelax) {
  TestServer server;
  Client client(options_for(server));
  std::string tissue, elastic;
  Topology topology;
  // A coarser slab than the scene's (288 tetrahedra, ~10 ms a step): the session must keep real
  // time for the hand's seconds to be the tissue's, on a slow or busy machine too.
  const std::vector<std::string> slab = {"gravity=[0,0,0]", "mesh.box.cells=[6,2,4]"};
  ASSERT_NO_FATAL_FAILURE(open_scene(client, "liver-creep", slab, tissue, topology));
  std::vector<std::string> elastic_slab = slab;
  elastic_slab.push_back(R"(material.viscoelastic={"prony": [{"mu": 1e-6, "tau": 0.05}]})");
  ASSERT_NO_FATAL_FAILURE(open_scene(client, "liver-creep", elastic_slab, elastic, topology));
  const std::string pen = press_hold_release(topology);
  const HapticLoopOptions o;
  const LinkRun creeping = press_through(server, tissue, pen, {}, o);
  const LinkRun holding = press_through(server, elastic, pen, {}, o);
  // The hold is t in [2, 5] s: its start (after the press's own transient) and its end.
  const double creep_start = creeping.mean_force(2.2, 2.6), creep_end = creeping.mean_force(4.6, 5);
  const double hold_start = holding.mean_force(2.2, 2.6), hold_end = holding.mean_force(4.6, 5);
  ASSERT_GT(creep_start, 0.2) << "the pen must press the tissue";
  ASSERT_GT(hold_start, 0.2);
  // Measured: 2.15 N at the hold's start, 2.01 N a second later, 1.95 N at its end (-9.5 %: the
  // 0.05 and 0.5 s terms have mostly relaxed during the 1 s press); the elastic slab 1.74 and
  // 1.75 N.
  const double creep_middle = creeping.mean_force(3.4, 3.8);
  EXPECT_LT(creep_middle, creep_start);
  EXPECT_LT(creep_end, creep_middle);
  EXPECT_LT(creep_end, 0.95 * creep_start) << creep_start << " N relaxed to " << creep_end;
  EXPECT_NEAR(hold_end, hold_start, 0.03 * hold_start);
  // Stiffer at first than the elastic slab (the Prony terms add to the long-term modulus).
  EXPECT_GT(creep_start, hold_start);
}

}  // namespace
}  // namespace softbody::client
