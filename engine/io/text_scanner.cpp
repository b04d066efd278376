#include "engine/io/text_scanner.h"

#include <algorithm>
#include <bit>
#include <cctype>
#include <cerrno>
#include <charconv>
#include <cstring>
#include <fstream>
#include <sstream>

namespace softbody {

TextScanner::TextScanner(std::string path, std::string_view content, char comment_char)
    : path_(std::move(path)), content_(content), comment_char_(comment_char) {}

void TextScanner::skip_space() {
  while (pos_ < content_.size()) {
    char c = content_[pos_];
    if (c == '\n') {
      ++line_;
      ++pos_;
    } else if (c == ' ' || c == '\t' || c == '\r' || c == '\f' || c == '\v') {
      ++pos_;
    } else if (comment_char_ != '\0' && c == comment_char_) {
      while (pos_ < content_.size() && content_[pos_] != '\n') ++pos_;
    } else {
      return;
    }
  }
}

bool TextScanner::at_end() {
  skip_space();
  return pos_ >= content_.size();
}

std::string_view TextScanner::peek(std::string_view what) {
  size_t saved_pos = pos_;
  long saved_line = line_;
  std::string_view token = next(what);
  pos_ = saved_pos;
  line_ = saved_line;
  return token;
}

std::string_view TextScanner::next(std::string_view what) {
  skip_space();
  if (pos_ >= content_.size()) {
    fail("unexpected end of file while reading " + std::string(what));
  }
  size_t start = pos_;
  while (pos_ < content_.size() && !std::isspace(static_cast<unsigned char>(content_[pos_])))
    ++pos_;
  return content_.substr(start, pos_ - start);
}

void TextScanner::expect(std::string_view keyword) {
  std::string_view token = next(keyword);
  if (token != keyword) {
    fail("expected '" + std::string(keyword) + "', found '" + std::string(token) + "'");
  }
}

double TextScanner::read_double(std::string_view what) {
  std::string_view token = next(what);
  double value = 0;
  auto [end, ec] = std::from_chars(token.data(), token.data() + token.size(), value);
  if (ec != std::errc() || end != token.data() + token.size()) {
    // from_chars rejects a leading '+', which some writers emit.
    if (!token.empty() && token[0] == '+') {
      auto [end2, ec2] = std::from_chars(token.data() + 1, token.data() + token.size(), value);
      if (ec2 == std::errc() && end2 == token.data() + token.size()) return value;
    }
    fail("expected " + std::string(what) + " (a number), found '" + std::string(token) + "'");
  }
  return value;
}

long long TextScanner::read_int(std::string_view what) {
  std::string_view token = next(what);
  long long value = 0;
  auto [end, ec] = std::from_chars(token.data(), token.data() + token.size(), value);
  if (ec != std::errc() || end != token.data() + token.size()) {
    fail("expected " + std::string(what) + " (an integer), found '" + std::string(token) + "'");
  }
  return value;
}

long long TextScanner::read_int_in(std::string_view what, long long lo, long long hi) {
  long long value = read_int(what);
  if (value < lo || value > hi) {
    fail(std::string(what) + " " + std::to_string(value) + " is out of range [" +
         std::to_string(lo) + ", " + std::to_string(hi) + "]");
  }
  return value;
}

long long TextScanner::read_count(std::string_view what) {
  const long long value = read_int_in(what, 0, 1LL << 31);
  const long long left = static_cast<long long>(content_.size() - std::min(pos_, content_.size()));
  if (value > left / 2)
    fail(std::string(what) + " " + std::to_string(value) + " cannot fit in the " +
         std::to_string(left) + " bytes that follow");
  return value;
}

void TextScanner::skip_line() {
  while (pos_ < content_.size() && content_[pos_] != '\n') ++pos_;
  if (pos_ < content_.size()) {
    ++pos_;
    ++line_;
  }
}

std::string_view TextScanner::rest_of_line() {
  size_t start = pos_;
  while (pos_ < content_.size() && content_[pos_] != '\n') ++pos_;
  std::string_view line = content_.substr(start, pos_ - start);
  if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
  if (pos_ < content_.size()) {
    ++pos_;
    ++line_;
  }
  return line;
}

void TextScanner::fail(const std::string& problem) const {
  fail_at_line(line_, problem);
}

void TextScanner::fail_at_line(long line, const std::string& problem) const {
  throw MeshError(path_, problem, {.line = line});
}

void BinaryReader::read_bytes(void* out, size_t n, std::string_view what) {
  if (pos_ + n > content_.size()) {
    fail("file ends in the middle of binary data (" + std::string(what) + ")");
  }
  auto* bytes = static_cast<unsigned char*>(out);
  std::memcpy(bytes, content_.data() + pos_, n);
  if (big_endian_ != (std::endian::native == std::endian::big)) std::reverse(bytes, bytes + n);
  pos_ += n;
}

void BinaryReader::fail(const std::string& problem) const {
  throw MeshError(path_, problem, {.byte_offset = static_cast<long>(pos_)});
}

std::string read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw MeshError(path, std::string("cannot open file: ") + std::strerror(errno));
  std::ostringstream buffer;
  buffer << in.rdbuf();
  return std::move(buffer).str();
}

}  // namespace softbody
