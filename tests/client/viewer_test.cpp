// softbody-viewer under a virtual X server (Xvfb): the window shows the body, and the picture
// changes when the body deforms.
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <functional>
#include <set>

#define STB_IMAGE_IMPLEMENTATION
#include <stb/stb_image.h>

#include "tests/client/client_test_support.h"
#include "tests/process.h"

namespace softbody::client {
namespace {

struct Image {
  int width = 0, height = 0;
  std::vector<unsigned char> rgb;
  const unsigned char* at(int x, int y) const {
    return &rgb[3 * (static_cast<size_t>(y) * width + x)];
  }
};

Image load_png(const std::string& path) {
  Image image;
  int channels = 0;
  unsigned char* data = stbi_load(path.c_str(), &image.width, &image.height, &channels, 3);
  if (!data) return image;
  image.rgb.assign(data, data + 3 * image.width * image.height);
  stbi_image_free(data);
  return image;
}

// The overlay's text lines (wrapped to the window's width) occupy the top of the window; compare
// below them.
constexpr int kOverlayRows = 170;

double fraction_where(const Image& im, const std::function<bool(const unsigned char*)>& p) {
  long n = 0, total = 0;
  for (int y = kOverlayRows; y < im.height; ++y)
    for (int x = 0; x < im.width; ++x, ++total) n += p(im.at(x, y));
  return static_cast<double>(n) / static_cast<double>(total);
}

// Sum of the absolute RGB differences of two pixels.
int colour_distance(const unsigned char* p, const unsigned char* q) {
  return std::abs(p[0] - q[0]) + std::abs(p[1] - q[1]) + std::abs(p[2] - q[2]);
}

// The fraction of pixels (below the overlay) that differ clearly between two pictures.
double fraction_changed(const Image& a, const Image& b) {
  long changed = 0, total = 0;
  for (int y = kOverlayRows; y < a.height; ++y)
    for (int x = 0; x < a.width; ++x, ++total)
      changed += colour_distance(a.at(x, y), b.at(x, y)) > 60;
  return static_cast<double>(changed) / static_cast<double>(total);
}

std::string screenshot(const server::ServerProcess& server, const std::string& session,
                       const std::string& path) {
  const auto r =
      test::run_process("xvfb-run -a -s '-screen 0 800x600x24' " + std::string(SOFTBODY_VIEWER) +
                        " --server 127.0.0.1:" + std::to_string(server.grpc_port()) + " " +
                        session + " --width 640 --height 480 --screenshot " + path);
  return r.exit_code == 0 ? "" : "viewer exit " + std::to_string(r.exit_code) + ": " + r.err;
}

TEST(Viewer, ShowsTheBodyAndChangesWhenItDeforms) {
  test::TestServer server;
  Client client(testing::options_for(server));
  // The default scene: a sphere pushes the knight from the side during the first 1.5 s.
  auto session = client.create_session("default", {}, true);
  ASSERT_TRUE(session);
  const std::string dir = std::filesystem::path(SOFTBODY_ARTIFACTS).string();
  std::filesystem::create_directories(dir);
  const std::string before = dir + "/viewer-rest.png", after = dir + "/viewer-deformed.png";

  ASSERT_EQ(screenshot(server, session->id(), before), "");
  ASSERT_TRUE(client.control(session->id(), v1::CONTROL_ACTION_STEP, 60));
  ASSERT_EQ(screenshot(server, session->id(), after), "");

  const Image a = load_png(before), b = load_png(after);
  ASSERT_EQ(a.width, 640);
  ASSERT_EQ(a.height, 480);
  ASSERT_EQ(b.width, 640);
  // Not blank: the background is a dark grey-blue, the body a lit red-brown.
  const unsigned char* bg = a.at(a.width - 1, a.height - 1);
  auto body = [](const unsigned char* p) { return p[0] > p[1] + 30 && p[0] > p[2] + 30; };
  EXPECT_GT(fraction_where(a, body), 0.02) << "the knight must cover part of the window";
  EXPECT_LT(fraction_where(a, body), 0.8);
  auto not_background = [bg](const unsigned char* p) { return colour_distance(p, bg) > 30; };
  EXPECT_GT(fraction_where(a, not_background), 0.02);
  // Shaded, not flat: the body shows many different intensities.
  std::set<int> shades;
  for (int y = kOverlayRows; y < a.height; ++y)
    for (int x = 0; x < a.width; ++x)
      if (body(a.at(x, y))) shades.insert(a.at(x, y)[0]);
  EXPECT_GT(shades.size(), 40u);
  // Deformed: a good part of the picture changed.
  EXPECT_GT(fraction_changed(a, b), 0.01);

  // A screenshot of the same state again is the same picture (the change above is the body's).
  const std::string again = dir + "/viewer-deformed-again.png";
  ASSERT_EQ(screenshot(server, session->id(), again), "");
  EXPECT_LT(fraction_changed(b, load_png(again)), 0.002);
}

// The overlay's text colour (light grey), which nothing else in the window has at the top.
bool overlay_text(const unsigned char* p) {
  return p[0] > 200 && p[1] > 200 && p[2] > 190;
}

// A session the viewer created ends with it (unless --keep), and it says so; at 640 px the
// overlay's text wraps instead of running off the right edge.
TEST(Viewer, ACreatedSessionEndsWithTheViewerAndTheOverlayFitsTheWindow) {
  test::TestServer server;
  Client client(testing::options_for(server));
  const std::string dir = std::filesystem::path(SOFTBODY_ARTIFACTS).string();
  std::filesystem::create_directories(dir);
  const std::string path = dir + "/viewer-created.png";
  const std::string viewer = "xvfb-run -a -s '-screen 0 800x600x24' " +
                             std::string(SOFTBODY_VIEWER) +
                             " --server 127.0.0.1:" + std::to_string(server.grpc_port()) +
                             " --scene default --width 640 --height 480 --screenshot " + path;
  auto r = test::run_process(viewer);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.err.find("it is deleted when the viewer closes"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("deleted session"), std::string::npos) << r.err;
  auto sessions = client.list_sessions();
  ASSERT_TRUE(sessions);
  EXPECT_TRUE(sessions->empty()) << sessions->size() << " sessions left";

  const Image image = load_png(path);
  ASSERT_EQ(image.width, 640);
  long text = 0, at_right_edge = 0;
  for (int y = 0; y < kOverlayRows; ++y)
    for (int x = 0; x < image.width; ++x)
      if (overlay_text(image.at(x, y))) ++text, at_right_edge += x >= image.width - 4;
  EXPECT_GT(text, 500) << "the overlay must show";
  EXPECT_EQ(at_right_edge, 0) << "the overlay runs off the right edge";

  auto kept = test::run_process(viewer + " --keep");
  ASSERT_EQ(kept.exit_code, 0) << kept.err;
  EXPECT_NE(kept.err.find("it stays when the viewer closes"), std::string::npos) << kept.err;
  sessions = client.list_sessions();
  ASSERT_TRUE(sessions);
  EXPECT_EQ(sessions->size(), 1u);
}

}  // namespace
}  // namespace softbody::client
