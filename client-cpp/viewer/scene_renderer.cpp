#include "client-cpp/viewer/scene_renderer.h"

#include <cmath>
#include <glm/gtc/matrix_transform.hpp>
#include <glm/gtc/type_ptr.hpp>

namespace softbody::viewer {

namespace {

const char* const kLitVertex = R"(#version 330 core
layout(location = 0) in vec3 position;
layout(location = 1) in vec3 normal;
uniform mat4 view_projection;
uniform vec3 offset;
uniform float scale;
out vec3 world_normal;
out vec3 world_position;
void main() {
  world_position = offset + scale * position;
  world_normal = normal;
  gl_Position = view_projection * vec4(world_position, 1.0);
})";

const char* const kLitFragment = R"(#version 330 core
in vec3 world_normal;
in vec3 world_position;
uniform vec3 color;
uniform vec3 eye;
out vec4 out_color;
void main() {
  vec3 n = normalize(world_normal);
  vec3 v = normalize(eye - world_position);
  if (dot(n, v) < 0.0) n = -n;  // light the inside of an open surface too
  vec3 key = normalize(vec3(0.4, 1.0, 0.6)), fill = normalize(vec3(-0.7, 0.3, -0.5));
  float diffuse = 0.75 * max(dot(n, key), 0.0) + 0.3 * max(dot(n, fill), 0.0);
  float specular = 0.35 * pow(max(dot(reflect(-key, n), v), 0.0), 32.0);
  out_color = vec4(color * (0.18 + diffuse) + vec3(specular), 1.0);
})";

const char* const kFlatVertex = R"(#version 330 core
layout(location = 0) in vec3 position;
uniform mat4 view_projection;
void main() { gl_Position = view_projection * vec4(position, 1.0); })";

const char* const kFlatFragment = R"(#version 330 core
uniform vec3 color;
out vec4 out_color;
void main() { out_color = vec4(color, 1.0); })";

// A unit sphere as latitude/longitude bands (position = normal).
void build_sphere(GlMesh& mesh) {
  const int rings = 12, segments = 20;
  std::vector<float> v;
  std::vector<unsigned> idx;
  for (int r = 0; r <= rings; ++r) {
    const float theta = static_cast<float>(M_PI) * static_cast<float>(r) / rings;
    for (int s = 0; s <= segments; ++s) {
      const float phi = 2 * static_cast<float>(M_PI) * static_cast<float>(s) / segments;
      const float p[3] = {std::sin(theta) * std::cos(phi), std::cos(theta),
                          std::sin(theta) * std::sin(phi)};
      v.insert(v.end(), {p[0], p[1], p[2], p[0], p[1], p[2]});
    }
  }
  for (int r = 0; r < rings; ++r)
    for (int s = 0; s < segments; ++s) {
      const unsigned a = static_cast<unsigned>(r * (segments + 1) + s), b = a + segments + 1;
      idx.insert(idx.end(), {a, b, a + 1, a + 1, b, b + 1});
    }
  mesh.set_vertices(v);
  mesh.set_indices(idx);
}

}  // namespace

glm::vec3 Camera::eye() const {
  return target + distance * glm::vec3(std::cos(pitch) * std::sin(yaw), std::sin(pitch),
                                       std::cos(pitch) * std::cos(yaw));
}

glm::mat4 Camera::view() const {
  return glm::lookAt(eye(), target, glm::vec3(0, 1, 0));
}

glm::mat4 Camera::projection(float aspect, float scene_size) const {
  return glm::perspective(fov, aspect, 0.01f * scene_size, 100.0f * scene_size);
}

std::vector<float> vertex_normals(const std::vector<float>& p, const std::vector<unsigned>& tri) {
  std::vector<float> n(p.size(), 0.0f);
  for (size_t t = 0; t + 2 < tri.size(); t += 3) {
    const glm::vec3 a(p[3 * tri[t]], p[3 * tri[t] + 1], p[3 * tri[t] + 2]);
    const glm::vec3 b(p[3 * tri[t + 1]], p[3 * tri[t + 1] + 1], p[3 * tri[t + 1] + 2]);
    const glm::vec3 c(p[3 * tri[t + 2]], p[3 * tri[t + 2] + 1], p[3 * tri[t + 2] + 2]);
    const glm::vec3 face = glm::cross(b - a, c - a);  // length = twice the area: area weighting
    for (int k = 0; k < 3; ++k)
      for (int d = 0; d < 3; ++d)
        n[3 * tri[t + static_cast<size_t>(k)] + static_cast<size_t>(d)] += face[d];
  }
  for (size_t i = 0; i + 2 < n.size(); i += 3) {
    const float len = std::sqrt(n[i] * n[i] + n[i + 1] * n[i + 1] + n[i + 2] * n[i + 2]);
    if (len > 0)
      for (int d = 0; d < 3; ++d) n[i + static_cast<size_t>(d)] /= len;
  }
  return n;
}

SceneRenderer::SceneRenderer(const std::vector<unsigned>& triangles) : triangles_(triangles) {
  lit_ = std::make_unique<GlProgram>(kLitVertex, kLitFragment);
  flat_ = std::make_unique<GlProgram>(kFlatVertex, kFlatFragment);
  surface_ = std::make_unique<GlMesh>(std::vector<int>{3, 3});
  surface_->set_indices(triangles_);
  sphere_ = std::make_unique<GlMesh>(std::vector<int>{3, 3});
  build_sphere(*sphere_);
  arrow_ = std::make_unique<GlMesh>(std::vector<int>{3});
}

void SceneRenderer::set_surface(const std::vector<float>& positions) {
  const std::vector<float> normals = vertex_normals(positions, triangles_);
  interleaved_.resize(2 * positions.size());
  for (size_t i = 0; i < positions.size() / 3; ++i)
    for (size_t d = 0; d < 3; ++d) {
      interleaved_[6 * i + d] = positions[3 * i + d];
      interleaved_[6 * i + 3 + d] = normals[3 * i + d];
    }
  surface_->set_vertices(interleaved_);
  has_surface_ = true;
}

void SceneRenderer::draw(const Camera& camera, float aspect, float scene_size,
                         const glm::vec3& tool, float tool_radius, bool tool_active,
                         const glm::vec3& force, float metres_per_newton) {
  const glm::mat4 vp = camera.projection(aspect, scene_size) * camera.view();
  const glm::vec3 eye = camera.eye();
  lit_->use();
  glUniformMatrix4fv(lit_->uniform("view_projection"), 1, GL_FALSE, glm::value_ptr(vp));
  glUniform3fv(lit_->uniform("eye"), 1, glm::value_ptr(eye));
  if (has_surface_) {
    glUniform3f(lit_->uniform("offset"), 0, 0, 0);
    glUniform1f(lit_->uniform("scale"), 1);
    glUniform3f(lit_->uniform("color"), 0.85f, 0.45f, 0.40f);
    surface_->draw(GL_TRIANGLES);
  }
  glUniform3fv(lit_->uniform("offset"), 1, glm::value_ptr(tool));
  glUniform1f(lit_->uniform("scale"), tool_radius);
  if (tool_active)
    glUniform3f(lit_->uniform("color"), 0.35f, 0.55f, 0.9f);
  else
    glUniform3f(lit_->uniform("color"), 0.45f, 0.45f, 0.5f);
  sphere_->draw(GL_TRIANGLES);

  const glm::vec3 tip = tool + metres_per_newton * force;
  arrow_->set_vertices({tool.x, tool.y, tool.z, tip.x, tip.y, tip.z});
  flat_->use();
  glUniformMatrix4fv(flat_->uniform("view_projection"), 1, GL_FALSE, glm::value_ptr(vp));
  glUniform3f(flat_->uniform("color"), 1.0f, 0.85f, 0.1f);
  glDisable(GL_DEPTH_TEST);  // the force is drawn over everything
  arrow_->draw(GL_LINES);
  glEnable(GL_DEPTH_TEST);
}

}  // namespace softbody::viewer
