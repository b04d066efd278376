// The one error type of mesh loading and validation. Its message always names the file and, where
// known, the line (or byte offset) and the element at fault, e.g.
//   "bunny.mesh:42: expected a vertex coordinate (a number), found 'abc'"
//   "knight.ele: tetrahedron 17 (vertices 3 5 9 12): zero volume (...): degenerate"
#pragma once

#include <optional>
#include <sstream>
#include <stdexcept>
#include <string>

namespace softbody {

struct MeshErrorLocation {
  std::optional<long> line = {};         // 1-based line in a text file
  std::optional<long> byte_offset = {};  // offset in a binary section
  std::optional<long> element = {};  // tetrahedron (or vertex, see the problem text) index, 0-based
};

class MeshError : public std::runtime_error {
 public:
  using Location = MeshErrorLocation;

  MeshError(std::string file, std::string problem, Location where = Location{})
      : std::runtime_error(format(file, problem, where)),
        file_(std::move(file)),
        problem_(std::move(problem)),
        where_(where) {}

  const std::string& file() const { return file_; }
  const std::string& problem() const { return problem_; }
  const Location& where() const { return where_; }

 private:
  static std::string format(const std::string& file, const std::string& problem,
                            const Location& w) {
    std::ostringstream s;
    s << file;
    if (w.line) s << ':' << *w.line;
    if (w.byte_offset) s << ": at byte " << *w.byte_offset;
    s << ": " << problem;
    return s.str();
  }

  std::string file_;
  std::string problem_;
  Location where_;
};

}  // namespace softbody
