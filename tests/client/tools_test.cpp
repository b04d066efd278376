// The command-line tools as a user runs them against a real server: softbody-client (list,
// create, control, watch, haptic, record, delete) and a short softbody-load run with thresholds.
#include <gtest/gtest.h>

#include <chrono>
#include <csignal>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <thread>

#include "client-cpp/devices/recording.h"
#include "tests/client/client_test_support.h"
#include "tests/process.h"

namespace softbody::client {
namespace {

using test::run_process;

class Tools : public test::SharedServerTest<Tools> {
 protected:
  std::string address() const { return "127.0.0.1:" + std::to_string(server_->grpc_port()); }
  test::ProcessResult client(const std::string& args) const {
    return run_process(std::string(SOFTBODY_CLIENT) + " --server " + address() + " " + args);
  }
};

std::string trim(std::string s) {
  while (!s.empty() && (s.back() == '\n' || s.back() == ' ')) s.pop_back();
  return s;
}

TEST_F(Tools, ClientCommandsManageSessionsAndRunTheHapticLoop) {
  // Overrides as the --help shows them: a JSON pointer or a dotted path.
  auto created =
      client("create --scene cantilever --paused --label cli --set /material/E=2e4 --set dt=0.02");
  ASSERT_EQ(created.exit_code, 0) << created.err;
  const std::string id = trim(created.out);
  ASSERT_EQ(id.size(), 12u) << created.out;

  auto listed = client("list --json");
  ASSERT_EQ(listed.exit_code, 0) << listed.err;
  const auto list = nlohmann::json::parse(listed.out);
  bool found = false;
  for (const auto& s : list["sessions"]["sessions"]) {
    if (s["id"] != id) continue;
    found = s["label"] == "cli";
    EXPECT_EQ(s["settings"]["youngs_modulus"], 2e4) << s.dump();
    EXPECT_EQ(s["settings"]["dt"], 0.02) << s.dump();
  }
  EXPECT_TRUE(found) << listed.out;
  EXPECT_NE(client("list").out.find(id), std::string::npos);

  auto stepped = client("control " + id + " step --steps 3");
  ASSERT_EQ(stepped.exit_code, 0) << stepped.err;
  EXPECT_NE(stepped.out.find("step 3"), std::string::npos) << stepped.out;
  ASSERT_EQ(client("control " + id + " resume").exit_code, 0);

  auto watched = client("watch " + id + " --duration 2 --rate 30 --json");
  ASSERT_EQ(watched.exit_code, 0) << watched.err;
  const auto w = nlohmann::json::parse(watched.out);
  EXPECT_GT(w["frames"].get<long>(), 20) << watched.out;  // 30 Hz for 2 s
  EXPECT_LE(w["frames_per_s"].get<double>(), 30 * 1.2);
  EXPECT_GT(w["last_step"].get<long>(), 3);
  EXPECT_NE(watched.err.find("frames/s"), std::string::npos);  // the live lines
  // 30 of the session's 50 steps a second are sent: the rest are skipped by the rate asked for
  // (how many depends on how close to real time the loaded machine steps), not dropped, which
  // would mean the watcher was too slow.
  EXPECT_GT(w["frames_skipped_by_rate"].get<long>(), 0) << watched.out;
  EXPECT_LE(w["frames_dropped_by_server"].get<long>(), 2) << watched.out;
  EXPECT_NE(watched.err.find(" skipped by rate "), std::string::npos) << watched.err;

  const std::string recording = testing::temp_path("cli.csv");
  auto haptic =
      client("record " + id + " --device sim --duration 1.5 --cpu -2 --json --output " + recording);
  ASSERT_EQ(haptic.exit_code, 0) << haptic.err;
  const auto h = nlohmann::json::parse(haptic.out);
  EXPECT_GT(h["ticks"].get<long>(), 1000);
  EXPECT_EQ(h["replies_missing"].get<long>(), 0);
  EXPECT_GT(h["jitter_us"]["count"].get<long>(), 1000);
  const auto samples = load_recording(recording);
  EXPECT_GT(samples.size(), 1000u);

  auto replayed = client("haptic " + id + " --device replay:" + recording + " --cpu -2 --json");
  ASSERT_EQ(replayed.exit_code, 0) << replayed.err;
  EXPECT_NEAR(nlohmann::json::parse(replayed.out)["duration_s"].get<double>(),
              samples.back().t - samples.front().t, 0.1);
  std::filesystem::remove(recording);

  // Errors: the server's status and message, exit status 1.
  auto bad_device = client("haptic " + id + " --device joystick");
  EXPECT_EQ(bad_device.exit_code, 1);
  EXPECT_NE(bad_device.err.find("unknown device 'joystick'"), std::string::npos) << bad_device.err;
  auto bad_plugin = client("haptic " + id + " --device plugin:/nonexistent.so");
  EXPECT_EQ(bad_plugin.exit_code, 1);
  EXPECT_NE(bad_plugin.err.find("/nonexistent.so"), std::string::npos);

  ASSERT_EQ(client("delete " + id).exit_code, 0);
  auto gone = client("delete " + id);
  EXPECT_EQ(gone.exit_code, 1);
  EXPECT_NE(gone.err.find("NOT_FOUND"), std::string::npos) << gone.err;
  auto unreachable =
      run_process(std::string(SOFTBODY_CLIENT) + " --server 127.0.0.1:1 --deadline 1 list");
  EXPECT_EQ(unreachable.exit_code, 1);
  EXPECT_NE(unreachable.err.find("UNAVAILABLE"), std::string::npos) << unreachable.err;
}

// `create --mesh` uploads a local mesh (TetGen here: .node and .ele) with a local scene whose mesh
// section gives the transforms; the scene's own "file" is replaced by the upload.
TEST_F(Tools, CreateUploadsALocalMeshWithTheScenesTransforms) {
  const std::string knight = std::string(SOFTBODY_SCENES) + "/../meshes/knight.node";
  const std::string scene = testing::temp_path("upload.json");
  {
    std::ofstream out(scene);
    out << R"({"mesh": {"file": "not/on/the/server.msh", "fit_height": 0.2, "lowest_y": 0},
               "material": {"E": 3e4, "nu": 0.4, "density": 1000}, "dt": 0.01})";
  }
  auto made = client("create --mesh " + knight + " --scene " + scene +
                     " --set /material/E=4e4 --paused --json");
  std::filesystem::remove(scene);
  ASSERT_EQ(made.exit_code, 0) << made.err;
  const auto info = nlohmann::json::parse(made.out);
  EXPECT_EQ(info["num_vertices"], 554);
  EXPECT_EQ(info["scene_name"], "knight.node");
  EXPECT_NEAR(info["rest_bounds"]["max"]["y"].get<double>(), 0.2, 1e-9);  // fit_height
  EXPECT_EQ(info["settings"]["youngs_modulus"], 4e4);                     // --set applies too
  EXPECT_EQ(client("delete " + info["id"].get<std::string>()).exit_code, 0);

  auto not_a_mesh = client("create --mesh " + std::string(SOFTBODY_SCENES) + "/default.json");
  EXPECT_EQ(not_a_mesh.exit_code, 1);
  EXPECT_NE(not_a_mesh.err.find("unknown mesh file extension '.json'"), std::string::npos)
      << not_a_mesh.err;
  auto named_scene = client("create --scene knight --mesh " + knight);
  EXPECT_EQ(named_scene.exit_code, 1);
  EXPECT_NE(named_scene.err.find("--scene must be a local .json file"), std::string::npos);
}

// A mesh with slivers is accepted, and the user hears why its implicit steps may be slow: on
// standard error (standard output stays the id or the JSON) and in the session's info.
// A sound mesh (the knight above) gets no warning.
TEST_F(Tools, CreateWarnsOfAMeshWithSlivers) {
  const std::string bunny = std::string(SOFTBODY_SCENES) + "/../tests/meshes/bunny.mesh";
  auto made = client("create --paused --mesh " + bunny + " --json");
  ASSERT_EQ(made.exit_code, 0) << made.err;
  EXPECT_NE(made.err.find("softbody-client: warning: the uploaded mesh: "), std::string::npos)
      << made.err;
  // 2.4e-7 is the bunny's lowest quality (softbody-sim info).
  EXPECT_NE(made.err.find("tetrahedra are slivers (quality 6 sqrt(2) V / l_rms^3 below 0.001, "
                          "the lowest 2.4e-07)"),
            std::string::npos)
      << made.err;
  const auto info = nlohmann::json::parse(made.out);  // the SessionInfo, warnings included
  ASSERT_EQ(info["warnings"].size(), 1u) << made.out;
  EXPECT_NE(info["warnings"][0].get<std::string>().find("remesh it with a quality bound"),
            std::string::npos);
  EXPECT_EQ(client("delete " + info["id"].get<std::string>()).exit_code, 0);

  const std::string knight = std::string(SOFTBODY_SCENES) + "/../meshes/knight.node";
  auto sound = client("create --paused --mesh " + knight + " --json");
  ASSERT_EQ(sound.exit_code, 0) << sound.err;
  EXPECT_EQ(sound.err.find("warning"), std::string::npos) << sound.err;
  EXPECT_FALSE(nlohmann::json::parse(sound.out).contains("warnings"));
  EXPECT_EQ(client("delete " + nlohmann::json::parse(sound.out)["id"].get<std::string>()).exit_code,
            0);
}

// What `create` says when the mesh, an override or a formula is wrong: the file the user named
// and the line (not "bad.node.node:5"; not the .ele of a .node that does not exist), the override
// once ("overrides[0]: overrides: --set ..." said it twice), the full JSON path of a formula (it
// stopped at "/obstacles/1/trajectory/").
TEST_F(Tools, CreateErrorsNameWhatIsWrongOnce) {
  const std::string dir = testing::temp_path("bad-mesh");
  std::filesystem::create_directories(dir);
  std::ofstream(dir + "/bad.node") << "4 3 0 0\n0 0 0 0\n1 1 0 0\n2 0 1 0\nx 0 0 1\n";
  std::ofstream(dir + "/bad.ele") << "1 4 0\n0 0 1 2 3\n";
  auto bad = client("create --mesh " + dir + "/bad.node");
  EXPECT_EQ(bad.exit_code, 1);
  EXPECT_NE(bad.err.find("INVALID_ARGUMENT: uploaded_mesh.content: bad.node:5: expected a point "
                         "index"),
            std::string::npos)
      << bad.err;
  auto missing = client("create --mesh " + dir + "/nonexistent.node");
  EXPECT_EQ(missing.exit_code, 1);
  EXPECT_NE(missing.err.find(dir + "/nonexistent.node: cannot be read (no such file"),
            std::string::npos)
      << missing.err;
  EXPECT_EQ(missing.err.find("nonexistent.ele"), std::string::npos) << missing.err;
  std::filesystem::remove(dir + "/bad.ele");
  auto no_elements = client("create --mesh " + dir + "/bad.node");
  EXPECT_NE(no_elements.err.find(dir + "/bad.ele: cannot be read (no such file; TetGen needs"),
            std::string::npos)
      << no_elements.err;
  std::filesystem::remove_all(dir);

  auto set = client("create --scene default --set obstacles.7.radius=1");
  EXPECT_EQ(set.exit_code, 1);
  EXPECT_EQ(trim(set.err),
            "softbody-client: INVALID_ARGUMENT: overrides[0]: --set obstacles.7.radius: "
            "'/obstacles' has 2 entries: index 7 is out of range");
  auto formula = client(
      R"(create --scene default --set 'obstacles.1.trajectory={"piecewise": [{"from": 0, "to": 1, "position": ["0.1", "sin(", "0"]}]}')");
  EXPECT_EQ(formula.exit_code, 1);
  EXPECT_NE(formula.err.find("/obstacles/1/trajectory/piecewise/0/position/1: formula 'sin(': "),
            std::string::npos)
      << formula.err;
  auto kinds = client(R"(create --scene default --set 'obstacles.1.trajectory={}')");
  EXPECT_NE(kinds.err.find("/obstacles/1/trajectory: needs exactly one of constant, keyframes, "
                           "piecewise"),
            std::string::npos)
      << kinds.err;
}

// `haptic --device sim` without --duration ends when the pen's default script does (3 presses,
// 12 s; it ran forever though --help said it would end with the device), and a tool that touches
// nothing says so: the 0.9 m knight uploaded into the default upload scene at E = 20 kPa topples,
// and the pen pressed its rest top for minutes without a word. With the knight scene's transforms
// (15 cm, feet fixed) the same upload is touched.
TEST_F(Tools, TheSimulatedPenFinishesAndSaysWhenItTouchesNothing) {
  const std::string knight = std::string(SOFTBODY_SCENES) + "/../meshes/knight.node";
  // Created paused and stepped 6 s before the pen starts: the knight has toppled onto the floor
  // whatever the machine's speed (in real time, a busy machine's slow steps left it still falling
  // through the pen's path at the first press: one tick of contact, 0.05 N).
  auto toppled = client("create --paused --mesh " + knight + " --set material.E=2e4");
  ASSERT_EQ(toppled.exit_code, 0) << toppled.err;
  // (A generous deadline: 300 steps take a second when idle, over ten on a machine busy twice
  // over.)
  ASSERT_EQ(client("--deadline 300 control " + trim(toppled.out) + " step --steps 300").exit_code,
            0);
  ASSERT_EQ(client("control " + trim(toppled.out) + " resume").exit_code, 0);
  const auto start = std::chrono::steady_clock::now();
  auto untouched = client("haptic " + trim(toppled.out) + " --device sim --cpu -2");
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  EXPECT_EQ(untouched.exit_code, 0) << untouched.err;
  EXPECT_GT(seconds, 11);
  EXPECT_LT(seconds, 40) << "the default script is 3 presses of 4 s";
  EXPECT_NE(untouched.err.find("softbody-client: the tool has touched nothing for "),
            std::string::npos)
      << untouched.err;
  EXPECT_NE(untouched.out.find("(the tool touched nothing)"), std::string::npos) << untouched.out;

  auto standing = client("create --mesh " + knight + " --scene " + std::string(SOFTBODY_SCENES) +
                         "/knight.json");
  ASSERT_EQ(standing.exit_code, 0) << standing.err;
  auto touched = client("haptic " + trim(standing.out) + " --duration 6 --cpu -2 --json");
  ASSERT_EQ(touched.exit_code, 0) << touched.err;
  EXPECT_GT(nlohmann::json::parse(touched.out)["ticks_in_contact"].get<long>(), 500) << touched.out;
  EXPECT_EQ(touched.err.find("touched nothing"), std::string::npos) << touched.err;
}

// A vendor device (the simulated pen loaded as a plugin) given no configuration still works over
// the body: its origin is put just above the body's top, so its default press reaches it, as the
// `sim` device's does.
TEST_F(Tools, APluginDeviceWithoutConfigurationTouchesTheBody) {
  // Away from the scene origin, where a device origin left at (0, 0, 0) touches nothing.
  auto created =
      client("create --scene cantilever --set gravity=[0,0,0] --set mesh.box.origin=[0.3,0.1,0]");
  ASSERT_EQ(created.exit_code, 0) << created.err;
  const std::string id = trim(created.out);
  auto at_origin = client("haptic " + id +
                          " --device plugin:" SOFTBODY_SIM_PEN_PLUGIN
                          " --offset 0,0,0 --duration 1 --cpu -2 --json");
  ASSERT_EQ(at_origin.exit_code, 0) << at_origin.err;
  EXPECT_EQ(nlohmann::json::parse(at_origin.out)["ticks_in_contact"], 0) << at_origin.out;
  // By default (--contact auto) the cantilever's Newton step with a factor makes the tool a
  // constraint one (issue 22): the body is met and pushes back, the force re-solved from the
  // step's contact problem at every tick in contact.
  for (const std::string device : {"sim", "plugin:" SOFTBODY_SIM_PEN_PLUGIN}) {
    auto r = client("haptic " + id + " --device " + device + " --duration 2.5 --cpu -2 --json");
    ASSERT_EQ(r.exit_code, 0) << device << ": " << r.err;
    const auto report = nlohmann::json::parse(r.out);
    EXPECT_EQ(report["contact_model"], "constraint") << device << ": " << r.out;
    EXPECT_GT(report["ticks_in_contact"].get<long>(), 100) << device << ": " << r.out;
    EXPECT_GT(report["largest_force_n"].get<double>(), 0.01) << device << ": " << r.out;
    EXPECT_GT(report["ticks_rendered_by_contact_problem"].get<long>(), 100) << r.out;
  }
  // The same press with penalty contact: rendered from the coupling model, never a problem.
  auto penalty =
      client("haptic " + id + " --device sim --contact penalty --duration 2.5 --cpu -2 --json");
  ASSERT_EQ(penalty.exit_code, 0) << penalty.err;
  const auto report = nlohmann::json::parse(penalty.out);
  EXPECT_EQ(report["contact_model"], "penalty") << penalty.out;
  EXPECT_GT(report["ticks_in_contact"].get<long>(), 100) << penalty.out;
  EXPECT_GT(report["largest_force_n"].get<double>(), 0.01) << penalty.out;
  EXPECT_EQ(report["ticks_rendered_by_contact_problem"].get<long>(), 0) << penalty.out;
  auto bad = client("haptic " + id + " --offset 1,2 --duration 1");
  EXPECT_EQ(bad.exit_code, 1);
  EXPECT_NE(bad.err.find("--offset 1,2: expected x,y,z"), std::string::npos) << bad.err;
  ASSERT_EQ(client("delete " + id).exit_code, 0);
}

// A stalled server (stopped for 400 ms) is felt as old forces at every tick of the stall, though
// the round trips of the replies that came back say little: no coordinated omission.
TEST_F(Tools, LoadRunFeelsAStalledServerAsOldForces) {
  const std::string command = std::string(SOFTBODY_LOAD) + " --server " + address() +
                              " --scene cantilever --sessions 1 --subscribers-per-session 0"
                              " --haptic-per-session 1 --rate 1000 --duration 2 --warmup 0.3"
                              " --json";
  test::ProcessResult r;
  std::thread load([&] { r = run_process(command); });
  std::this_thread::sleep_for(std::chrono::milliseconds(1000));  // inside the measured window
  ::kill(server_->pid(), SIGSTOP);
  std::this_thread::sleep_for(std::chrono::milliseconds(400));
  ::kill(server_->pid(), SIGCONT);
  load.join();
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  const auto j = nlohmann::json::parse(r.out);
  // Every tick of the stall held a force older than the deadline, the last ~400 ms old.
  EXPECT_GE(j["force_age_ms"]["max"].get<double>(), 350) << j["force_age_ms"].dump();
  EXPECT_GE(j["deadline_misses"].get<long>(), 200) << r.out;
}

// Without --json: progress lines each second on stderr and a summary table on stdout; --ramp
// measures stages of growing session counts and, with thresholds, reports the capacity.
TEST_F(Tools, LoadRunRampsUpAndPrintsATable) {
  const std::string base = std::string(SOFTBODY_LOAD) + " --server " + address() +
                           " --scene cantilever --subscribers-per-session 1"
                           " --haptic-per-session 1 --rate 200 --frame-rate 30 --duration 1.2"
                           " --warmup 0.3 --ramp 1,2 --max-errors 0";
  auto table = run_process(base);
  ASSERT_EQ(table.exit_code, 0) << table.out << table.err;
  // At least the line of the stage's end, whatever the machine's speed.
  EXPECT_NE(table.err.find(" s  2 sessions  replies/s"), std::string::npos) << table.err;
  EXPECT_NE(table.out.find("softbody-load ramp of 'cantilever'"), std::string::npos) << table.out;
  EXPECT_NE(table.out.find("capacity (the most sessions before a threshold was crossed): 2"),
            std::string::npos)
      << table.out;
  auto r = run_process(base + " --json");
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_EQ(r.err.find("load:"), std::string::npos) << "progress lines with --json: " << r.err;
  const auto j = nlohmann::json::parse(r.out);
  ASSERT_EQ(j["stages"].size(), 2u);
  EXPECT_EQ(j["stages"][0]["sessions"].get<int>(), 1);
  EXPECT_EQ(j["stages"][1]["sessions"].get<int>(), 2);
  EXPECT_EQ(j["stages"][1]["real_time_factor"]["per_session"].size(), 2u);
  EXPECT_EQ(j["capacity_sessions"].get<int>(), 2);
  // A threshold no stage meets: capacity 0 and exit status 2.
  auto impossible = run_process(base + " --json --max-reply-p99-ms 0.000001");
  EXPECT_EQ(impossible.exit_code, 2);
  EXPECT_EQ(nlohmann::json::parse(impossible.out)["capacity_sessions"].get<int>(), 0);
}

// --contact chooses how the scripted tools press: on a session whose solver keeps no factor (CG) an
// explicit constraint tool is refused at every command, auto is taken (as penalty there).
TEST_F(Tools, LoadRunPressesWithTheContactModelAsked) {
  const std::string base = std::string(SOFTBODY_LOAD) + " --server " + address() +
                           " --scene cantilever --set solver.type=cg"
                           " --subscribers-per-session 0 --haptic-per-session 1 --rate 200"
                           " --duration 0.5 --warmup 0.2 --json";
  auto constraint = run_process(base + " --contact constraint");
  ASSERT_EQ(constraint.exit_code, 0) << constraint.out << constraint.err;
  const auto refused = nlohmann::json::parse(constraint.out);
  EXPECT_GT(refused["commands_rejected"].get<long>(), 0) << constraint.out;
  // Every command is refused (bar those in flight when the stream closed).
  EXPECT_GE(10 * refused["commands_rejected"].get<long>(),
            9 * refused["commands_sent"].get<long>());
  auto automatic = run_process(base + " --contact auto");
  ASSERT_EQ(automatic.exit_code, 0) << automatic.out << automatic.err;
  const auto taken = nlohmann::json::parse(automatic.out);
  EXPECT_GT(taken["commands_sent"].get<long>(), 0) << automatic.out;
  EXPECT_EQ(taken["commands_rejected"].get<long>(), 0) << automatic.out;
  auto bad = run_process(base + " --contact spring");
  EXPECT_NE(bad.exit_code, 0);
  EXPECT_NE(bad.err.find("--contact"), std::string::npos) << bad.err;
}

TEST_F(Tools, LoadRunReportsEveryMetricAndEnforcesThresholds) {
  const std::string base = std::string(SOFTBODY_LOAD) + " --server " + address() +
                           " --scene cantilever --sessions 2 --subscribers-per-session 2"
                           " --haptic-per-session 1 --rate 500 --frame-rate 10 --duration 2"
                           " --warmup 0.5 --json --set /dt=0.01";
  // Only what holds on any machine, however slow or busy: the run's behaviour and its counts'
  // consistency, never a capacity (a slow machine delivers fewer frames and ticks).
  auto r = run_process(base + " --max-replies-missing 0");
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  const auto j = nlohmann::json::parse(r.out);
  for (const char* metric : {"force_reply_latency_ms", "frame_interval_ms"})
    for (const char* field : {"count", "p50", "p90", "p99", "p999", "max"})
      EXPECT_TRUE(j[metric].contains(field)) << metric << ' ' << field;
  EXPECT_GT(j["force_reply_latency_ms"]["count"].get<long>(), 0);
  EXPECT_LE(j["force_reply_latency_ms"]["count"].get<long>(), j["commands_sent"].get<long>());
  EXPECT_EQ(j["replies_missing"].get<long>(), 0);
  EXPECT_EQ(j["errors"]["total"].get<long>(), 0) << j["errors"].dump();
  EXPECT_EQ(j["real_time_factor"]["per_session"].size(), 2u);
  EXPECT_GT(j["frames_received"].get<long>(), 0);
  EXPECT_NEAR(j["frames_expected"].get<double>(), 2 * 2 * 10 * 2, 1e-9);
  EXPECT_NEAR(j["frame_ratio"].get<double>(),
              j["frames_received"].get<double>() / j["frames_expected"].get<double>(), 1e-12);
  EXPECT_GT(j["frames_possible"].get<double>(), 0);
  EXPECT_NEAR(j["frame_ratio_of_possible"].get<double>(),
              j["frames_received"].get<double>() / j["frames_possible"].get<double>(), 1e-12);
  // 10 Hz of 100 Hz sessions: steps are skipped by the rate asked for where the server kept up
  // (a busy machine ran these sessions at 0.05 of real time, slower than the rate: nothing to
  // skip), and frames never come faster than asked.
  if (j["real_time_factor"]["min"].get<double>() > 0.5) {
    EXPECT_GT(j["frames_skipped_by_rate"].get<long>(), 0) << r.out;
  }
  EXPECT_GE(j["frames_dropped_by_server"].get<long>(), 0);
  EXPECT_GT(j["frame_interval_ms"]["p50"].get<double>(), 0.6 * 100);
  // What a haptic user feels: a force age at every measured tick of the command clock (the
  // generator's own late wake-ups excepted), never younger than one tick.
  EXPECT_EQ(j["force_age_ms"]["count"].get<long>(), j["haptic_ticks"].get<long>());
  EXPECT_GT(j["haptic_ticks"].get<long>(), 0);
  EXPECT_GE(j["force_age_ms"]["p50"].get<double>(), 0.99 * 2.0);  // 2 ms ticks at 500 Hz
  EXPECT_DOUBLE_EQ(j["deadline_ms"].get<double>(), 5);
  EXPECT_GE(j["deadline_misses"].get<long>(), 0);
  // Frame latency from a step's end to its arrival, on this machine's clock (loopback server).
  EXPECT_EQ(j["frame_latency_ms"]["count"].get<long>(), j["frames_received"].get<long>());
  EXPECT_GT(j["frame_latency_ms"]["p50"].get<double>(), 0);
  EXPECT_NE(j["frame_latency_clock"].get<std::string>().find("exact"), std::string::npos);
  // Sessions are deleted afterwards.
  EXPECT_EQ(j["thresholds_crossed"].size(), 0u);

  // An impossible threshold fails the run with exit status 2 and says which.
  auto strict = run_process(base + " --max-reply-p99-ms 0.000001");
  EXPECT_EQ(strict.exit_code, 2);
  EXPECT_NE(strict.err.find("force reply p99"), std::string::npos) << strict.err;
  auto frames = run_process(base + " --min-frame-ratio 1.5");  // more frames than sent
  EXPECT_EQ(frames.exit_code, 2);
  EXPECT_NE(frames.err.find("frames received/expected"), std::string::npos) << frames.err;
  // An unknown scene stops the run before it starts (exit status 1).
  auto bad = run_process(std::string(SOFTBODY_LOAD) + " --server " + address() +
                         " --scene no-such-scene --duration 1");
  EXPECT_EQ(bad.exit_code, 1);
  EXPECT_NE(bad.err.find("no-such-scene"), std::string::npos) << bad.err;
}

}  // namespace
}  // namespace softbody::client
