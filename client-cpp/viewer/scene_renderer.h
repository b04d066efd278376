// Draws the session's surface (smooth normals, two lights), the tool and the force vector.
#pragma once

#include <glm/glm.hpp>
#include <memory>
#include <vector>

#include "client-cpp/viewer/gl_program.h"

namespace softbody::viewer {

struct Camera {
  glm::vec3 target{0, 0, 0};
  float distance = 1, yaw = 0.6f, pitch = 0.45f;  // radians
  float fov = 0.8f;

  glm::vec3 eye() const;
  glm::mat4 view() const;
  glm::mat4 projection(float aspect, float scene_size) const;
};

class SceneRenderer {
 public:
  // `triangles`: 3 indices each into the surface vertex list.
  explicit SceneRenderer(const std::vector<unsigned>& triangles);

  // Surface positions, 3 floats per vertex (surface-frame order).
  void set_surface(const std::vector<float>& positions);
  void draw(const Camera& camera, float aspect, float scene_size, const glm::vec3& tool_position,
            float tool_radius, bool tool_active, const glm::vec3& force, float metres_per_newton);
  bool has_surface() const { return has_surface_; }

 private:
  std::vector<unsigned> triangles_;
  std::vector<float> interleaved_;  // position + normal
  std::unique_ptr<GlProgram> lit_, flat_;
  std::unique_ptr<GlMesh> surface_, sphere_, arrow_;
  bool has_surface_ = false;
};

// Area-weighted vertex normals of a triangle surface (3 floats per vertex).
std::vector<float> vertex_normals(const std::vector<float>& positions,
                                  const std::vector<unsigned>& triangles);

}  // namespace softbody::viewer
