// Breaks overlay lines at spaces so that each fits a width (a narrow window must not cut the
// statistics off at its right edge). Pure text layout: no OpenGL, unit-tested.
#pragma once

#include <functional>
#include <string>
#include <vector>

namespace softbody::viewer {

// `width_of` measures a string in the same unit as `max_width`. A word wider than `max_width` on
// its own stays whole on its line (it cannot be broken meaningfully); continuation lines are
// indented by two spaces.
std::vector<std::string> wrap_lines(const std::vector<std::string>& lines, float max_width,
                                    const std::function<float(const std::string&)>& width_of);

}  // namespace softbody::viewer
