#include "client-cpp/viewer/overlay.h"

#include <stb/stb_easy_font.h>

#include "client-cpp/viewer/text_wrap.h"

namespace softbody::viewer {

namespace {

const char* const kVertex = R"(#version 330 core
layout(location = 0) in vec2 pixel;
uniform vec2 viewport;
uniform float scale;
void main() {
  vec2 p = scale * pixel;
  gl_Position = vec4(2.0 * p.x / viewport.x - 1.0, 1.0 - 2.0 * p.y / viewport.y, 0.0, 1.0);
})";

const char* const kFragment = R"(#version 330 core
out vec4 out_color;
void main() { out_color = vec4(0.95, 0.95, 0.9, 1.0); })";

}  // namespace

Overlay::Overlay()
    : program_(std::make_unique<GlProgram>(kVertex, kFragment)),
      mesh_(std::make_unique<GlMesh>(std::vector<int>{2})) {}

void Overlay::draw(const std::vector<std::string>& lines, int width, int height, float scale) {
  // stb_easy_font emits quads of 4 vertices (x, y, z, rgba: 16 bytes each); split into triangles.
  static char buffer[99999];
  vertices_.clear();
  float y = 6;
  const float margin = 6;
  const auto text_width = [](const std::string& s) {
    return static_cast<float>(stb_easy_font_width(const_cast<char*>(s.c_str())));
  };
  for (const std::string& line :
       wrap_lines(lines, (static_cast<float>(width) / scale) - 2 * margin, text_width)) {
    const int quads =
        stb_easy_font_print(6, y, const_cast<char*>(line.c_str()), nullptr, buffer, sizeof buffer);
    const auto* v = reinterpret_cast<const float*>(buffer);
    for (int q = 0; q < quads; ++q) {
      const float* c = v + 16 * q;  // 4 vertices x 4 floats
      for (int corner : {0, 1, 2, 0, 2, 3})
        vertices_.insert(vertices_.end(), {c[4 * corner], c[4 * corner + 1]});
    }
    y += 12;
  }
  if (vertices_.empty()) return;
  mesh_->set_vertices(vertices_);
  program_->use();
  glUniform2f(program_->uniform("viewport"), static_cast<float>(width), static_cast<float>(height));
  glUniform1f(program_->uniform("scale"), scale);
  glDisable(GL_DEPTH_TEST);
  mesh_->draw(GL_TRIANGLES);
  glEnable(GL_DEPTH_TEST);
}

}  // namespace softbody::viewer
