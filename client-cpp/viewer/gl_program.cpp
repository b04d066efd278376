#include "client-cpp/viewer/gl_program.h"

#include <numeric>
#include <stdexcept>

namespace softbody::viewer {

namespace {

GLuint compile(GLenum type, const char* source) {
  const GLuint shader = glCreateShader(type);
  glShaderSource(shader, 1, &source, nullptr);
  glCompileShader(shader);
  GLint ok = 0;
  glGetShaderiv(shader, GL_COMPILE_STATUS, &ok);
  if (!ok) {
    char log[2048];
    glGetShaderInfoLog(shader, sizeof log, nullptr, log);
    glDeleteShader(shader);
    throw std::runtime_error(std::string("shader compilation failed: ") + log);
  }
  return shader;
}

}  // namespace

GlProgram::GlProgram(const char* vertex_source, const char* fragment_source) {
  const GLuint vs = compile(GL_VERTEX_SHADER, vertex_source);
  const GLuint fs = compile(GL_FRAGMENT_SHADER, fragment_source);
  id_ = glCreateProgram();
  glAttachShader(id_, vs);
  glAttachShader(id_, fs);
  glLinkProgram(id_);
  glDeleteShader(vs);
  glDeleteShader(fs);
  GLint ok = 0;
  glGetProgramiv(id_, GL_LINK_STATUS, &ok);
  if (!ok) {
    char log[2048];
    glGetProgramInfoLog(id_, sizeof log, nullptr, log);
    throw std::runtime_error(std::string("shader link failed: ") + log);
  }
}

GlProgram::~GlProgram() {
  glDeleteProgram(id_);
}

GlMesh::GlMesh(std::vector<int> layout) {
  stride_ = std::accumulate(layout.begin(), layout.end(), 0);
  glGenVertexArrays(1, &vao_);
  glGenBuffers(1, &vbo_);
  glBindVertexArray(vao_);
  glBindBuffer(GL_ARRAY_BUFFER, vbo_);
  int offset = 0;
  for (size_t i = 0; i < layout.size(); ++i) {
    glEnableVertexAttribArray(static_cast<GLuint>(i));
    glVertexAttribPointer(static_cast<GLuint>(i), layout[i], GL_FLOAT, GL_FALSE,
                          stride_ * static_cast<GLsizei>(sizeof(float)),
                          reinterpret_cast<const void*>(offset * sizeof(float)));
    offset += layout[i];
  }
  glBindVertexArray(0);
}

GlMesh::~GlMesh() {
  glDeleteBuffers(1, &vbo_);
  if (ebo_) glDeleteBuffers(1, &ebo_);
  glDeleteVertexArrays(1, &vao_);
}

void GlMesh::set_vertices(const std::vector<float>& interleaved) {
  glBindBuffer(GL_ARRAY_BUFFER, vbo_);
  glBufferData(GL_ARRAY_BUFFER, static_cast<GLsizeiptr>(interleaved.size() * sizeof(float)),
               interleaved.data(), GL_DYNAMIC_DRAW);
  vertex_count_ = static_cast<GLsizei>(interleaved.size() / static_cast<size_t>(stride_));
}

void GlMesh::set_indices(const std::vector<unsigned>& indices) {
  glBindVertexArray(vao_);
  if (!ebo_) glGenBuffers(1, &ebo_);
  glBindBuffer(GL_ELEMENT_ARRAY_BUFFER, ebo_);
  glBufferData(GL_ELEMENT_ARRAY_BUFFER, static_cast<GLsizeiptr>(indices.size() * sizeof(unsigned)),
               indices.data(), GL_STATIC_DRAW);
  index_count_ = static_cast<GLsizei>(indices.size());
  glBindVertexArray(0);
}

void GlMesh::draw(GLenum mode) const {
  glBindVertexArray(vao_);
  if (ebo_)
    glDrawElements(mode, index_count_, GL_UNSIGNED_INT, nullptr);
  else
    glDrawArrays(mode, 0, vertex_count_);
  glBindVertexArray(0);
}

}  // namespace softbody::viewer
