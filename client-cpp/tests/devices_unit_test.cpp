// Unit tests of the devices: the simulated pen's dynamics, recordings and their replay, and the
// plugin loader (through the in-tree simulated-pen plugin).
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <fstream>

#include "client-cpp/devices/device_factory.h"
#include "client-cpp/devices/plugin_device.h"
#include "client-cpp/devices/recording.h"
#include "client-cpp/devices/replay_device.h"
#include "client-cpp/devices/simulated_pen.h"

namespace softbody::client {
namespace {

std::string temp_path(const std::string& name) {
  return (std::filesystem::temp_directory_path() /
          ("softbody-devices-" + std::to_string(getpid()) + "-" + name))
      .string();
}

TEST(SimulatedPen, FollowsTheHandAndYieldsToTheRenderedForce) {
  // Hand held still 2 cm below the start after one cycle's first half: with no force the pen
  // settles on the hand; with a constant upward force F it settles F / k above it.
  SimulatedPenConfig c = parse_simulated_pen_config(
      "start=0,0.1,0;direction=0,-1,0;depth=0.02;period=2;cycles=1;mass=0.1;hand_stiffness=400");
  SimulatedPen free_pen(c), pushed_pen(c);
  DeviceState a, b;
  for (int i = 1; i <= 4000; ++i) {  // 4 s at 1 kHz; the hand returns to start at t = 2 s
    const double t = i * 1e-3;
    a = free_pen.read(t);
    b = pushed_pen.read(t);
    pushed_pen.write_force({0, 2.0, 0}, t);
  }
  EXPECT_NEAR(a.position[1], 0.1, 1e-4);
  EXPECT_NEAR(b.position[1], 0.1 + 2.0 / 400, 1e-4);
  EXPECT_TRUE(free_pen.finished());
  // Halfway through the stroke the hand is at full depth and the pen lags behind it by little.
  SimulatedPen pen(c);
  DeviceState mid;
  for (int i = 1; i <= 1000; ++i) mid = pen.read(i * 1e-3);
  EXPECT_NEAR(mid.position[1], 0.08, 2e-3);
}

TEST(SimulatedPen, TheHandHoldsAtFullDepth) {
  const SimulatedPenConfig c =
      parse_simulated_pen_config("start=0,0.1,0;depth=0.02;period=2;hold=3;cycles=1");
  const ScriptedHand& h = c.hand;
  EXPECT_NEAR(h.position(0.5)[1], 0.09, 1e-12);
  for (double t : {1.5, 2.0, 3.9}) {
    EXPECT_NEAR(h.position(t)[1], 0.08, 1e-12) << t;
    EXPECT_EQ(h.velocity(t)[1], 0) << t;
  }
  EXPECT_NEAR(h.position(4.5)[1], 0.09, 1e-12);
  EXPECT_GT(h.velocity(4.5)[1], 0);  // back up
  EXPECT_NEAR(h.position(5.0)[1], 0.1, 1e-12);
  SimulatedPen pen(c);
  pen.read(4.9);
  EXPECT_FALSE(pen.finished());
  pen.read(5.01);
  EXPECT_TRUE(pen.finished());
  EXPECT_THROW(parse_simulated_pen_config("hold=-1"), std::invalid_argument);
}

TEST(SimulatedPen, TheHandWaitsBeforeItsFirstCycle) {
  const SimulatedPenConfig c =
      parse_simulated_pen_config("start=0,0.1,0;depth=0.02;period=2;wait=1;cycles=1");
  const ScriptedHand& h = c.hand;
  for (double t : {0.0, 0.5, 1.0}) {
    EXPECT_EQ(h.position(t)[1], 0.1) << t;
    EXPECT_EQ(h.velocity(t)[1], 0) << t;
  }
  EXPECT_NEAR(h.position(1.5)[1], 0.09, 1e-12);  // the first cycle's quarter, a second late
  EXPECT_LT(h.velocity(1.5)[1], 0);
  SimulatedPen pen(c);
  pen.read(2.9);
  EXPECT_FALSE(pen.finished());
  pen.read(3.01);
  EXPECT_TRUE(pen.finished());
  EXPECT_THROW(parse_simulated_pen_config("wait=-1"), std::invalid_argument);
}

TEST(SimulatedPen, ConfigErrorsNameTheKey) {
  EXPECT_THROW(parse_simulated_pen_config("depht=1"), std::invalid_argument);
  try {
    parse_simulated_pen_config("start=1,2");
    FAIL();
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("start=1,2"), std::string::npos) << e.what();
  }
  EXPECT_THROW(parse_simulated_pen_config("mass=-1"), std::invalid_argument);
  EXPECT_THROW(parse_simulated_pen_config("period=abc"), std::invalid_argument);
}

TEST(Recording, RecordThenReplayReproducesTheMotion) {
  const std::string path = temp_path("round-trip.csv");
  SimulatedPenConfig c =
      parse_simulated_pen_config("start=0,0,0;direction=1,0,0;depth=0.05;period=1");
  std::vector<DeviceState> truth;
  {
    RecordingDevice recorder(std::make_unique<SimulatedPen>(c), path);
    for (int i = 0; i < 500; ++i) {
      const double t = i * 1e-3;
      truth.push_back(recorder.read(t));
      recorder.write_force({0.1 * i, 0, 0}, t);
    }
    recorder.close();
    EXPECT_EQ(recorder.rows(), 500);
  }
  const auto samples = load_recording(path);
  ASSERT_EQ(samples.size(), 500u);
  EXPECT_NEAR(samples[123].force[0], 12.3, 1e-6);
  ReplayDevice replay(path);
  // Between samples the replay interpolates: at the recorded instants it returns the recording.
  for (int i : {10, 250, 498}) {
    const DeviceState s = replay.read(i * 1e-3);
    EXPECT_NEAR(s.position[0], truth[static_cast<size_t>(i)].position[0], 1e-8) << i;
    EXPECT_NEAR(s.velocity[0], truth[static_cast<size_t>(i)].velocity[0], 1e-6) << i;
  }
  const DeviceState half = replay.read(0.2505);
  EXPECT_NEAR(half.position[0], 0.5 * (truth[250].position[0] + truth[251].position[0]), 1e-8);
  EXPECT_FALSE(replay.finished());
  replay.read(0.6);
  EXPECT_TRUE(replay.finished());
  std::filesystem::remove(path);
}

TEST(Recording, MalformedFilesNameFileLineAndProblem) {
  const std::string path = temp_path("bad.csv");
  auto expect_error = [&](const std::string& text, const std::string& needle) {
    std::ofstream(path) << text;
    try {
      load_recording(path);
      ADD_FAILURE() << "accepted: " << text;
    } catch (const std::runtime_error& e) {
      const std::string m = e.what();
      EXPECT_NE(m.find(path), std::string::npos) << m;
      EXPECT_NE(m.find(needle), std::string::npos) << m;
    }
  };
  expect_error("t,x,y\n0,1,2\n", "lacks column 'z'");
  expect_error("t,x,y,z\n0,1,2,3\n0.1,1,abc,3\n", ":3: y: 'abc'");
  expect_error("t,x,y,z\n0,1,2,3\n0,1,2,3\n", ":3: t must increase");
  expect_error("t,x,y,z\n0,1,2\n", ":2: missing value for z");
  expect_error("t,x,y,z\n", "no samples");
  EXPECT_THROW(load_recording(path + ".missing"), std::runtime_error);
  // A hand-written file with only t,x,y,z replays with velocities from differences.
  std::ofstream(path) << "# hand-written\nt,x,y,z\n0,0,0,0\n1,1,0,0\n";
  ReplayDevice replay(path);
  EXPECT_NEAR(replay.read(0.5).velocity[0], 1, 1e-12);
  std::filesystem::remove(path);
}

TEST(Plugin, TheSimulatedPenPluginBehavesAsTheBuiltInPen) {
  const std::string config = "start=0,0.1,0;direction=0,-1,0;depth=0.02;period=2;cycles=1";
  PluginDevice plugin(SOFTBODY_SIM_PEN_PLUGIN, config);
  SimulatedPen builtin(parse_simulated_pen_config(config));
  EXPECT_NE(plugin.name().find("softbody simulated pen"), std::string::npos);
  for (int i = 1; i <= 1500; ++i) {
    const double t = i * 1e-3;
    const DeviceState p = plugin.read(t), b = builtin.read(t);
    ASSERT_DOUBLE_EQ(p.position[1], b.position[1]) << t;
    plugin.write_force({0, 1, 0}, t);
    builtin.write_force({0, 1, 0}, t);
  }
  EXPECT_FALSE(plugin.finished());
  plugin.read(2.5);
  EXPECT_TRUE(plugin.finished());
  EXPECT_EQ(plugin.failures(), 0);
}

TEST(Plugin, LoadErrorsAreClear) {
  auto message = [](const std::string& path, const std::string& config) {
    try {
      PluginDevice d(path, config);
    } catch (const std::runtime_error& e) {
      return std::string(e.what());
    }
    return std::string("loaded");
  };
  EXPECT_NE(message("/nonexistent/libdevice.so", "").find("/nonexistent/libdevice.so"),
            std::string::npos);
  // A real shared library that is not a plugin.
  EXPECT_NE(message("libm.so.6", "").find("does not export softbody_haptic_plugin_v1"),
            std::string::npos);
  // The plugin's own configuration error comes through.
  EXPECT_NE(message(SOFTBODY_SIM_PEN_PLUGIN, "speed=3").find("unknown key 'speed'"),
            std::string::npos);
  EXPECT_THROW(make_device("joystick"), std::invalid_argument);
  EXPECT_THROW(make_device("replay:"), std::invalid_argument);
  EXPECT_NO_THROW(make_device(std::string("plugin:") + SOFTBODY_SIM_PEN_PLUGIN + ":depth=0.01"));
}

}  // namespace
}  // namespace softbody::client
