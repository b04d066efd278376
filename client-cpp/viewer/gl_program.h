// Small OpenGL 3.3 core helpers for the viewer: shader programs and vertex buffers.
#pragma once

#define GL_GLEXT_PROTOTYPES  // Mesa's libGL exports every core entry point on Linux
#include <GL/gl.h>
#include <GL/glext.h>

#include <string>
#include <vector>

namespace softbody::viewer {

// A linked vertex + fragment shader. Throws std::runtime_error with the compiler's log.
class GlProgram {
 public:
  GlProgram(const char* vertex_source, const char* fragment_source);
  ~GlProgram();
  GlProgram(const GlProgram&) = delete;
  GlProgram& operator=(const GlProgram&) = delete;
  void use() const { glUseProgram(id_); }
  GLint uniform(const char* name) const { return glGetUniformLocation(id_, name); }

 private:
  GLuint id_ = 0;
};

// A vertex array with one interleaved float buffer and optional indices.
class GlMesh {
 public:
  // `layout`: floats per attribute, e.g. {3, 3} for position + normal.
  explicit GlMesh(std::vector<int> layout);
  ~GlMesh();
  GlMesh(const GlMesh&) = delete;
  GlMesh& operator=(const GlMesh&) = delete;
  void set_vertices(const std::vector<float>& interleaved);
  void set_indices(const std::vector<unsigned>& indices);
  void draw(GLenum mode) const;  // indexed when indices were set

 private:
  GLuint vao_ = 0, vbo_ = 0, ebo_ = 0;
  int stride_ = 0;
  GLsizei vertex_count_ = 0, index_count_ = 0;
};

}  // namespace softbody::viewer
