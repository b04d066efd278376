// Text lines in the window's top-left corner (stb_easy_font from Debian's libstb-dev).
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "client-cpp/viewer/gl_program.h"

namespace softbody::viewer {

class Overlay {
 public:
  Overlay();
  void draw(const std::vector<std::string>& lines, int width, int height, float scale = 2);

 private:
  std::unique_ptr<GlProgram> program_;
  std::unique_ptr<GlMesh> mesh_;
  std::vector<float> vertices_;
};

}  // namespace softbody::viewer
