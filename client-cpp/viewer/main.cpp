// softbody-viewer: a window on a live session (docs/client-cpp.md). Shows the surface with
// lighting, the tool, the force on it and an overlay of the haptic loop's rate, round trip and
// model age. Without a device the mouse and keyboard move the tool.
//
//   left drag: orbit   wheel: zoom   right drag: move the tool in the view plane
//   W / S: tool towards / away from the camera   P / G / I: poke, grab, idle
//   space: pause / resume   R: reset   Esc: quit
#include "client-cpp/cli/command_line.h"
#include "client-cpp/cli/security_flags.h"
#include "client-cpp/viewer/gl_program.h"  // before GLFW: OpenGL with its prototypes
#define GLFW_INCLUDE_NONE
#include <GLFW/glfw3.h>

#include <CLI/CLI.hpp>
#include <chrono>
#include <cmath>
#include <cstdarg>
#include <cstdio>
#include <iostream>
#include <memory>
#include <mutex>

#define STB_IMAGE_WRITE_IMPLEMENTATION
#include <stb/stb_image_write.h>

#include "client-cpp/client/client.h"
#include "client-cpp/devices/device_factory.h"
#include "client-cpp/haptics/haptic_loop.h"
#include "client-cpp/viewer/overlay.h"
#include "client-cpp/viewer/pointer_device.h"
#include "client-cpp/viewer/scene_renderer.h"

namespace {

using namespace softbody;
using Clock = std::chrono::steady_clock;

// The newest decoded frame, handed from the subscription thread to the render loop.
struct LatestFrame {
  std::mutex mutex;
  std::vector<float> positions;
  v1::StepStatistics stats;
  long frames = 0;
};

struct Viewer {
  client::Client* client = nullptr;
  std::string session;
  viewer::Camera camera;
  viewer::PointerDevice* pointer = nullptr;  // null with a real device
  client::HapticLoop* loop = nullptr;
  bool paused = false;
  double last_x = 0, last_y = 0;
  bool orbiting = false, moving_tool = false;
  float scene_size = 1;
  std::string mode = "poke";
};

void move_tool(Viewer& v, const glm::vec3& delta) {
  if (!v.pointer) return;
  client::Vec3 p = v.pointer->target();
  for (int k = 0; k < 3; ++k) p[static_cast<size_t>(k)] += static_cast<double>(delta[k]);
  v.pointer->move_to(p);
}

void on_cursor(GLFWwindow* window, double x, double y) {
  auto& v = *static_cast<Viewer*>(glfwGetWindowUserPointer(window));
  const double dx = x - v.last_x, dy = y - v.last_y;
  v.last_x = x;
  v.last_y = y;
  if (v.orbiting) {
    v.camera.yaw -= 0.01f * static_cast<float>(dx);
    v.camera.pitch = std::clamp(v.camera.pitch + 0.01f * static_cast<float>(dy), -1.5f, 1.5f);
  } else if (v.moving_tool) {
    int w, h;
    glfwGetWindowSize(window, &w, &h);
    // One pixel at the target's depth spans this many metres.
    const float metres = 2 * v.camera.distance * std::tan(v.camera.fov / 2) / static_cast<float>(h);
    const glm::vec3 forward = glm::normalize(v.camera.target - v.camera.eye());
    const glm::vec3 right = glm::normalize(glm::cross(forward, glm::vec3(0, 1, 0)));
    const glm::vec3 up = glm::cross(right, forward);
    move_tool(v, metres * (static_cast<float>(dx) * right - static_cast<float>(dy) * up));
  }
}

void on_button(GLFWwindow* window, int button, int action, int) {
  auto& v = *static_cast<Viewer*>(glfwGetWindowUserPointer(window));
  if (button == GLFW_MOUSE_BUTTON_LEFT) v.orbiting = action == GLFW_PRESS;
  if (button == GLFW_MOUSE_BUTTON_RIGHT) v.moving_tool = action == GLFW_PRESS;
}

void on_scroll(GLFWwindow* window, double, double dy) {
  auto& v = *static_cast<Viewer*>(glfwGetWindowUserPointer(window));
  v.camera.distance *= std::pow(0.9f, static_cast<float>(dy));
}

void on_key(GLFWwindow* window, int key, int, int action, int) {
  if (action == GLFW_RELEASE) return;
  auto& v = *static_cast<Viewer*>(glfwGetWindowUserPointer(window));
  const glm::vec3 forward = glm::normalize(v.camera.target - v.camera.eye());
  const float step = 0.01f * v.scene_size;
  switch (key) {
    case GLFW_KEY_ESCAPE:
      glfwSetWindowShouldClose(window, 1);
      break;
    case GLFW_KEY_W:
      move_tool(v, step * forward);
      break;
    case GLFW_KEY_S:
      move_tool(v, -step * forward);
      break;
    case GLFW_KEY_P:
      v.loop->set_tool_mode(v1::TOOL_MODE_POKE), v.mode = "poke";
      break;
    case GLFW_KEY_G:
      v.loop->set_tool_mode(v1::TOOL_MODE_GRAB), v.mode = "grab";
      break;
    case GLFW_KEY_I:
      v.loop->set_tool_mode(v1::TOOL_MODE_IDLE), v.mode = "idle";
      break;
    case GLFW_KEY_R:
      v.client->control(v.session, v1::CONTROL_ACTION_RESET);
      break;
    case GLFW_KEY_SPACE:
      v.paused = !v.paused;
      v.client->control(v.session, v.paused ? v1::CONTROL_ACTION_PAUSE : v1::CONTROL_ACTION_RESUME);
      break;
    default:
      break;
  }
}

bool write_screenshot(const std::string& path, int width, int height) {
  std::vector<unsigned char> pixels(static_cast<size_t>(width * height * 3));
  glPixelStorei(GL_PACK_ALIGNMENT, 1);
  glReadPixels(0, 0, width, height, GL_RGB, GL_UNSIGNED_BYTE, pixels.data());
  stbi_flip_vertically_on_write(1);  // OpenGL's rows start at the bottom
  return stbi_write_png(path.c_str(), width, height, 3, pixels.data(), width * 3) != 0;
}

__attribute__((format(printf, 1, 2))) std::string format(const char* f, ...) {
  char buffer[256];
  va_list args;
  va_start(args, f);
  std::vsnprintf(buffer, sizeof buffer, f, args);
  va_end(args);
  return buffer;
}

// Deletes the session the viewer created when the viewer closes, on every way out (a session
// left behind would run unseen until the server's idle timeout).
class CreatedSession {
 public:
  CreatedSession(client::Client& client, std::string id) : client_(client), id_(std::move(id)) {}
  ~CreatedSession() {
    if (id_.empty()) return;
    if (auto r = client_.delete_session(id_); r)
      std::cerr << "softbody-viewer: deleted session " << id_ << '\n';
    else
      std::cerr << "softbody-viewer: could not delete session " << id_ << ": "
                << r.error().to_string() << '\n';
  }
  CreatedSession(const CreatedSession&) = delete;
  CreatedSession& operator=(const CreatedSession&) = delete;

 private:
  client::Client& client_;
  std::string id_;
};

}  // namespace

int main(int argc, char** argv) {
  client::ClientOptions client_options;
  std::string session, scene = "default", device_spec, screenshot;
  int width = 1024, height = 768, settle_frames = 3;
  bool keep = false;
  double screenshot_timeout = 30, screenshot_after = 0;
  client::HapticLoopOptions loop_options;
  loop_options.placement.cpu = -2;  // the viewer shares the machine with its window
  CLI::App app{"softbody-viewer: watch and touch a live softbody session"};
  app.add_option("--server", client_options.address,
                 "server address (default: the SOFTBODY_SERVER environment variable, else this)")
      ->capture_default_str()
      ->envname("SOFTBODY_SERVER");
  client::SecurityFlags security;
  client::add_security_flags(app, security);
  app.add_option("SESSION", session, "session id (default: create one of --scene)");
  app.add_option("--scene", scene, "scene to create when no session is given")
      ->capture_default_str();
  app.add_flag("--keep", keep,
               "leave the session created with --scene running when the viewer closes (others "
               "may join it; the server removes it after its idle timeout with nobody on it)");
  app.add_option("--device", device_spec,
                 "sim[:CONFIG] | replay:FILE | plugin:PATH[:CONFIG] "
                 "(default: mouse and keyboard)");
  app.add_option("--rate", loop_options.rate_hz, "haptic loop rate [Hz]")->capture_default_str();
  app.add_option("--radius", loop_options.tool.radius, "tool radius [m]")->capture_default_str();
  app.add_option("--width", width, "window width")->capture_default_str();
  app.add_option("--height", height, "window height")->capture_default_str();
  app.add_option("--screenshot", screenshot,
                 "render until a state frame arrived, write this PNG and exit (for tests)");
  app.add_option("--screenshot-timeout", screenshot_timeout, "seconds to wait for a frame");
  app.add_option("--screenshot-after", screenshot_after, "seconds to run before the screenshot");
  if (auto status = client::parse_command_line(app, argc, argv, "softbody-viewer")) return *status;
  try {
    client::apply_security_flags(security, client_options);
  } catch (const std::exception& e) {
    std::cerr << "softbody-viewer: " << e.what() << '\n';
    return 1;
  }

  std::unique_ptr<client::Client> client_owner;
  try {
    client_owner = std::make_unique<client::Client>(client_options);
  } catch (const std::exception& e) {
    std::cerr << "softbody-viewer: " << e.what() << '\n';
    return 1;
  }
  client::Client& client = *client_owner;
  std::unique_ptr<CreatedSession> created;
  if (session.empty()) {
    auto made = client.create_session(scene);
    if (!made) {
      std::cerr << "softbody-viewer: " << made.error().to_string() << '\n';
      return 1;
    }
    session = made->id();
    std::cerr << "softbody-viewer: created session " << session << " of '" << scene << "'; "
              << (keep ? "it stays when the viewer closes, until the server's idle timeout "
                         "passes with nobody on it"
                       : "it is deleted when the viewer closes (--keep leaves it running)")
              << '\n';
    if (!keep) created = std::make_unique<CreatedSession>(client, session);
  }
  auto topology = client.topology(session);
  if (!topology) {
    std::cerr << "softbody-viewer: " << topology.error().to_string() << '\n';
    return 1;
  }

  LatestFrame latest;
  client::SubscriptionOptions subscription_options;
  auto subscription =
      client.subscribe(session, subscription_options, [&latest](const client::DecodedFrame& f) {
        std::lock_guard lock(latest.mutex);
        latest.positions = f.positions;
        latest.stats = f.stats;
        ++latest.frames;
      });

  const auto& lo = topology->bounds_min;
  const auto& hi = topology->bounds_max;
  const glm::vec3 center(0.5 * (lo[0] + hi[0]), 0.5 * (lo[1] + hi[1]), 0.5 * (lo[2] + hi[2]));
  const float size = static_cast<float>(std::sqrt(
      std::pow(hi[0] - lo[0], 2) + std::pow(hi[1] - lo[1], 2) + std::pow(hi[2] - lo[2], 2)));

  std::unique_ptr<client::HapticDevice> device;
  viewer::PointerDevice* pointer = nullptr;
  try {
    if (device_spec.empty()) {
      // Start the tool above the body, clear of it.
      auto p = std::make_unique<viewer::PointerDevice>(
          client::Vec3{center.x, hi[1] + 3 * loop_options.tool.radius, center.z});
      pointer = p.get();
      device = std::move(p);
    } else {
      device = client::make_device(device_spec,
                                   client::default_pen_config(*topology, loop_options.tool.radius));
      // A vendor device's origin hovers over the body (the simulated pen's starting point).
      if (client::device_has_own_frame(device_spec))
        loop_options.workspace.offset = client::home_point(*topology, loop_options.tool.radius);
    }
  } catch (const std::exception& e) {
    std::cerr << "softbody-viewer: " << e.what() << '\n';
    return 1;
  }
  client::HapticLoop loop(*device, loop_options);
  loop.connect(client, session);

  if (!glfwInit()) {
    std::cerr << "softbody-viewer: cannot initialise GLFW (no display? set DISPLAY or run under "
                 "xvfb-run)\n";
    return 1;
  }
  glfwWindowHint(GLFW_CONTEXT_VERSION_MAJOR, 3);
  glfwWindowHint(GLFW_CONTEXT_VERSION_MINOR, 3);
  glfwWindowHint(GLFW_OPENGL_PROFILE, GLFW_OPENGL_CORE_PROFILE);
  glfwWindowHint(GLFW_SAMPLES, 4);
  GLFWwindow* window =
      glfwCreateWindow(width, height, ("softbody " + session).c_str(), nullptr, nullptr);
  if (!window) {
    std::cerr << "softbody-viewer: cannot open an OpenGL 3.3 window\n";
    glfwTerminate();
    return 1;
  }
  glfwMakeContextCurrent(window);
  glfwSwapInterval(1);

  Viewer v;
  v.client = &client;
  v.session = session;
  v.pointer = pointer;
  v.loop = &loop;
  v.scene_size = size;
  v.camera.target = center;
  v.camera.distance = 0.75f * size / std::tan(v.camera.fov / 2);
  glfwSetWindowUserPointer(window, &v);
  glfwSetCursorPosCallback(window, on_cursor);
  glfwSetMouseButtonCallback(window, on_button);
  glfwSetScrollCallback(window, on_scroll);
  glfwSetKeyCallback(window, on_key);

  int status = 0;
  try {
    std::vector<unsigned> triangles(topology->triangles.begin(), topology->triangles.end());
    viewer::SceneRenderer renderer(triangles);
    viewer::Overlay overlay;
    loop.start();
    glEnable(GL_DEPTH_TEST);
    long shown = -1, frames_since_surface = 0;
    int fps_frames = 0;
    double fps = 0;
    Clock::time_point fps_since = Clock::now(), started = Clock::now();
    std::vector<float> positions;
    v1::StepStatistics stats;
    while (!glfwWindowShouldClose(window)) {
      glfwPollEvents();
      {
        std::lock_guard lock(latest.mutex);
        if (latest.frames != shown) {
          positions = latest.positions;
          stats = latest.stats;
          shown = latest.frames;
        }
      }
      if (!positions.empty() && positions.size() == 3 * topology->surface_vertex_ids.size())
        renderer.set_surface(positions);
      int fb_w, fb_h;
      glfwGetFramebufferSize(window, &fb_w, &fb_h);
      glViewport(0, 0, fb_w, fb_h);
      glClearColor(0.12f, 0.13f, 0.16f, 1);
      glClear(GL_COLOR_BUFFER_BIT | GL_DEPTH_BUFFER_BIT);
      const client::HapticSnapshot h = loop.snapshot();
      const glm::vec3 tool(h.tool_position[0], h.tool_position[1], h.tool_position[2]);
      const glm::vec3 force(h.force[0], h.force[1], h.force[2]);
      renderer.draw(v.camera, static_cast<float>(fb_w) / static_cast<float>(std::max(fb_h, 1)),
                    size, tool, static_cast<float>(loop_options.tool.radius), h.contacts > 0, force,
                    0.02f);  // 2 cm per newton
      overlay.draw({format("session %s  step %lld  t %.2f s  rtf %.2f  %d it  step %.1f ms",
                           session.c_str(), static_cast<long long>(stats.step()), stats.sim_time(),
                           stats.real_time_factor(), stats.iterations(), stats.step_ms()),
                    format("haptic %s  %.0f Hz  round trip %.2f ms  model age %.1f ms",
                           device->name().c_str(), h.loop_rate_hz, h.round_trip_ms, h.model_age_ms),
                    format("tool %s  force %.2f N  %d contacts  %s  render %.0f fps",
                           v.mode.c_str(), static_cast<double>(glm::length(force)), h.contacts,
                           h.connected ? "connected" : "DISCONNECTED", fps)},
                   fb_w, fb_h);
      if (!screenshot.empty()) {
        const double running = std::chrono::duration<double>(Clock::now() - started).count();
        if (renderer.has_surface() && ++frames_since_surface > settle_frames &&
            running >= screenshot_after) {
          glFinish();
          if (!write_screenshot(screenshot, fb_w, fb_h)) {
            std::cerr << "softbody-viewer: cannot write " << screenshot << '\n';
            status = 1;
          }
          break;
        }
        if (running > screenshot_timeout + screenshot_after) {
          std::cerr << "softbody-viewer: no state frame within " << screenshot_timeout << " s\n";
          status = 1;
          break;
        }
      }
      glfwSwapBuffers(window);
      ++fps_frames;
      const double since = std::chrono::duration<double>(Clock::now() - fps_since).count();
      if (since >= 1) {
        fps = fps_frames / since;
        fps_frames = 0;
        fps_since = Clock::now();
      }
    }
  } catch (const std::exception& e) {
    std::cerr << "softbody-viewer: " << e.what() << '\n';
    status = 1;
  }
  loop.stop();
  subscription->stop();
  glfwDestroyWindow(window);
  glfwTerminate();
  return status;
}
