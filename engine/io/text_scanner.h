// Whitespace-separated token reader over a whole file held in memory, tracking line numbers so
// that every parse error can name file and line. Mesh formats mix text and binary sections, so
// the scanner also exposes its byte offset for BinaryReader to take over.
#pragma once

#include <string>
#include <string_view>

#include "engine/io/mesh_error.h"

namespace softbody {

class TextScanner {
 public:
  // comment_char: a token starting with it comments out the rest of its line ('\0' for none).
  TextScanner(std::string path, std::string_view content, char comment_char = '\0');

  // True when only whitespace and comments remain.
  bool at_end();
  // Next token; fails with "unexpected end of file while reading <what>" at the end.
  std::string_view next(std::string_view what);
  std::string_view peek(std::string_view what);
  void expect(std::string_view keyword);

  double read_double(std::string_view what);
  long long read_int(std::string_view what);
  // Integer that must lie in [lo, hi].
  long long read_int_in(std::string_view what, long long lo, long long hi);
  // A count of items that follow (points, cells), each taking at least 2 bytes of what is left:
  // a header may not ask for more than the file can hold (readers size arrays by it; a forged
  // count must not allocate gigabytes: found by the mesh loader fuzzer).
  long long read_count(std::string_view what);

  // Skips the rest of the current line including its newline.
  void skip_line();
  // The rest of the current line (without the newline), consumed.
  std::string_view rest_of_line();

  long line() const { return line_; }
  size_t offset() const { return pos_; }
  // Moves to a byte offset, e.g. after a binary block; line counting resumes from `line`.
  void seek(size_t offset, long line) {
    pos_ = offset;
    line_ = line;
  }
  std::string_view content() const { return content_; }
  const std::string& path() const { return path_; }

  [[noreturn]] void fail(const std::string& problem) const;
  [[noreturn]] void fail_at_line(long line, const std::string& problem) const;

 private:
  void skip_space();

  std::string path_;
  std::string_view content_;
  char comment_char_;
  size_t pos_ = 0;
  long line_ = 1;
};

// Fixed-size little- or big-endian values read from a binary section, with errors naming the byte
// offset. Bounds are always checked: a truncated file is an error, never a crash.
class BinaryReader {
 public:
  BinaryReader(std::string path, std::string_view content, size_t offset, bool big_endian)
      : path_(std::move(path)), content_(content), pos_(offset), big_endian_(big_endian) {}

  template <typename T>
  T read(std::string_view what) {
    T value;
    read_bytes(&value, sizeof(T), what);
    return value;
  }
  size_t offset() const { return pos_; }
  [[noreturn]] void fail(const std::string& problem) const;

 private:
  void read_bytes(void* out, size_t n, std::string_view what);

  std::string path_;
  std::string_view content_;
  size_t pos_;
  bool big_endian_;
};

// Whole file as bytes; MeshError when it cannot be read.
std::string read_file(const std::string& path);

}  // namespace softbody
