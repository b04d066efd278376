#include "client-cpp/viewer/text_wrap.h"

namespace softbody::viewer {

std::vector<std::string> wrap_lines(const std::vector<std::string>& lines, float max_width,
                                    const std::function<float(const std::string&)>& width_of) {
  std::vector<std::string> out;
  for (const std::string& line : lines) {
    std::string current;
    std::size_t i = 0;
    while (i <= line.size()) {
      // The next word with the spaces before it.
      std::size_t word_start = line.find_first_not_of(' ', i);
      if (word_start == std::string::npos) break;
      std::size_t word_end = line.find(' ', word_start);
      if (word_end == std::string::npos) word_end = line.size();
      const std::string piece = line.substr(i, word_end - i);
      const std::string word = line.substr(word_start, word_end - word_start);
      const bool fresh = current.empty() || current == "  ";
      if (fresh || width_of(current + piece) <= max_width) {
        current += fresh ? word : piece;
      } else {
        out.push_back(current);
        current = "  " + word;
      }
      i = word_end;
    }
    out.push_back(current);
  }
  return out;
}

}  // namespace softbody::viewer
