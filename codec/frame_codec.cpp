#include "codec/frame_codec.h"

#include <cmath>
#include <cstring>
#include <limits>

namespace softbody::codec {
namespace {

void put_u32(std::vector<std::uint8_t>& out, std::uint32_t v) {
  for (int k = 0; k < 4; ++k) out.push_back(static_cast<std::uint8_t>(v >> (8 * k)));
}

void put_f64(std::vector<std::uint8_t>& out, double v) {
  std::uint64_t bits;
  std::memcpy(&bits, &v, sizeof bits);
  for (int k = 0; k < 8; ++k) out.push_back(static_cast<std::uint8_t>(bits >> (8 * k)));
}

std::uint32_t get_u32(const std::uint8_t* p) {
  std::uint32_t v = 0;
  for (int k = 0; k < 4; ++k) v |= static_cast<std::uint32_t>(p[k]) << (8 * k);
  return v;
}

double get_f64(const std::uint8_t* p) {
  std::uint64_t bits = 0;
  for (int k = 0; k < 8; ++k) bits |= static_cast<std::uint64_t>(p[k]) << (8 * k);
  double v;
  std::memcpy(&v, &bits, sizeof v);
  return v;
}

void put_varint(std::vector<std::uint8_t>& out, std::int64_t value) {
  auto z = static_cast<std::uint64_t>((value << 1) ^ (value >> 63));  // zigzag
  while (z >= 0x80) {
    out.push_back(static_cast<std::uint8_t>(z | 0x80));
    z >>= 7;
  }
  out.push_back(static_cast<std::uint8_t>(z));
}

// Reads one zigzag varint; false past the end or beyond 64 bits.
bool get_varint(const std::uint8_t*& p, const std::uint8_t* end, std::int64_t& value) {
  std::uint64_t z = 0;
  for (int shift = 0; shift < 64; shift += 7) {
    if (p == end) return false;
    const std::uint8_t byte = *p++;
    z |= static_cast<std::uint64_t>(byte & 0x7f) << shift;
    if (!(byte & 0x80)) {
      value = static_cast<std::int64_t>(z >> 1) ^ -static_cast<std::int64_t>(z & 1);
      return true;
    }
  }
  return false;
}

void put_header(std::vector<std::uint8_t>& out, FrameKind kind, std::uint32_t count,
                std::uint32_t index, std::uint32_t reference) {
  out.push_back('S');
  out.push_back('B');
  out.push_back(kFormatVersion);
  out.push_back(static_cast<std::uint8_t>(kind));
  put_u32(out, count);
  put_u32(out, index);
  put_u32(out, reference);
}

}  // namespace

Grid grid_for_box(const double min[3], const double max[3], double relative_error_bound) {
  Grid g;
  double d2 = 0;
  for (int k = 0; k < 3; ++k) {
    g.origin[k] = 0.5 * (min[k] + max[k]);
    d2 += (max[k] - min[k]) * (max[k] - min[k]);
  }
  const double diagonal = d2 > 0 ? std::sqrt(d2) : 1.0;
  // Rounding to the nearest grid point errs by at most spacing/2 per coordinate, so by
  // sqrt(3) spacing / 2 per vertex.
  g.spacing = 2.0 * relative_error_bound * diagonal / std::sqrt(3.0);
  return g;
}

FrameEncoder::FrameEncoder(const Grid& grid, int keyframe_interval, bool raw)
    : grid_(grid), keyframe_interval_(keyframe_interval < 1 ? 1 : keyframe_interval), raw_(raw) {}

void FrameEncoder::encode(std::span<const double> xyz, bool force_keyframe,
                          std::vector<std::uint8_t>& out) {
  out.clear();
  const auto count = static_cast<std::uint32_t>(xyz.size() / 3);
  const std::uint32_t index = next_index_++;
  if (raw_) {
    put_header(out, FrameKind::kRawFloat32, count, index, 0);
    out.reserve(kHeaderBytes + 12 * static_cast<std::size_t>(count));
    for (double x : xyz) {
      const auto f = static_cast<float>(x);
      std::uint32_t bits;
      std::memcpy(&bits, &f, sizeof bits);
      put_u32(out, bits);
    }
    return;
  }
  // Grid coordinates; a value outside int32 (a body flung far away) forces a keyframe of
  // clamped values rather than overflowing.
  current_.resize(xyz.size());
  bool in_range = true;
  for (std::size_t i = 0; i < xyz.size(); ++i) {
    double q = std::nearbyint((xyz[i] - grid_.origin[i % 3]) / grid_.spacing);
    if (!(std::abs(q) < 2e9)) {
      in_range = false;
      q = std::isnan(q) ? 0.0 : (q > 0 ? 2e9 : -2e9);
    }
    current_[i] = static_cast<std::int32_t>(q);
  }
  const bool keyframe = force_keyframe || !in_range || previous_.size() != current_.size() ||
                        since_keyframe_ + 1 >= keyframe_interval_;
  put_header(out, keyframe ? FrameKind::kKeyframe : FrameKind::kDelta, count, index,
             keyframe ? index : index - 1);
  for (double o : grid_.origin) put_f64(out, o);
  put_f64(out, grid_.spacing);
  for (std::size_t i = 0; i < current_.size(); ++i) {
    const std::int64_t base = keyframe ? 0 : previous_[i];
    put_varint(out, static_cast<std::int64_t>(current_[i]) - base);
  }
  since_keyframe_ = keyframe ? 0 : since_keyframe_ + 1;
  previous_.swap(current_);
}

bool FrameDecoder::peek(std::span<const std::uint8_t> frame, FrameInfo& info, std::string& error) {
  if (frame.size() < kHeaderBytes || frame[0] != 'S' || frame[1] != 'B') {
    error = "not a softbody frame (bad magic or shorter than the header)";
    return false;
  }
  if (frame[2] != kFormatVersion) {
    error = "frame format version " + std::to_string(frame[2]) + " is not supported (1 is)";
    return false;
  }
  if (frame[3] > 2) {
    error = "unknown frame kind " + std::to_string(frame[3]);
    return false;
  }
  info.kind = static_cast<FrameKind>(frame[3]);
  info.vertex_count = get_u32(&frame[4]);
  info.index = get_u32(&frame[8]);
  info.reference = get_u32(&frame[12]);
  // Every vertex needs at least 3 bytes (quantized) or 12 (raw): reject counts the payload cannot
  // hold before allocating anything.
  const std::size_t per_vertex = info.kind == FrameKind::kRawFloat32 ? 12 : 3;
  if (static_cast<std::uint64_t>(info.vertex_count) * per_vertex > frame.size()) {
    error = "vertex count " + std::to_string(info.vertex_count) + " exceeds the frame's payload";
    return false;
  }
  return true;
}

bool FrameDecoder::decode(std::span<const std::uint8_t> frame, std::vector<float>& xyz,
                          std::string& error) {
  return decode_into(frame, xyz, error);
}

bool FrameDecoder::decode(std::span<const std::uint8_t> frame, std::vector<double>& xyz,
                          std::string& error) {
  return decode_into(frame, xyz, error);
}

template <typename T>
bool FrameDecoder::decode_into(std::span<const std::uint8_t> frame, std::vector<T>& xyz,
                               std::string& error) {
  FrameInfo info;
  if (!peek(frame, info, error)) return false;
  const std::size_t n = 3 * static_cast<std::size_t>(info.vertex_count);
  const std::uint8_t* p = frame.data() + kHeaderBytes;
  const std::uint8_t* end = frame.data() + frame.size();
  if (info.kind == FrameKind::kRawFloat32) {
    if (static_cast<std::size_t>(end - p) != 4 * n) {
      error = "raw frame payload has " + std::to_string(end - p) + " bytes, expected " +
              std::to_string(4 * n);
      return false;
    }
    xyz.resize(n);
    for (std::size_t i = 0; i < n; ++i) {
      const std::uint32_t bits = get_u32(p + 4 * i);
      float f;
      std::memcpy(&f, &bits, sizeof f);
      xyz[i] = static_cast<T>(f);
    }
    last_ = info;
    has_reference_ = false;  // deltas never refer to raw frames
    return true;
  }
  if (static_cast<std::size_t>(end - p) < kGridBytes) {
    error = "quantized frame shorter than its grid header";
    return false;
  }
  Grid grid;
  for (int k = 0; k < 3; ++k) grid.origin[k] = get_f64(p + 8 * k);
  grid.spacing = get_f64(p + 24);
  p += kGridBytes;
  if (!(grid.spacing > 0) || !std::isfinite(grid.spacing)) {
    error = "quantized frame with an invalid grid spacing";
    return false;
  }
  const bool delta = info.kind == FrameKind::kDelta;
  if (delta && (!has_reference_ || last_.index != info.reference || coordinates_.size() != n)) {
    error = "delta frame " + std::to_string(info.index) + " refers to frame " +
            std::to_string(info.reference) + ", which was not the last frame decoded";
    has_reference_ = false;
    return false;
  }
  std::vector<std::int32_t> next(n);
  for (std::size_t i = 0; i < n; ++i) {
    std::int64_t v;
    if (!get_varint(p, end, v)) {
      error = "quantized frame truncated at coordinate " + std::to_string(i);
      has_reference_ = false;
      return false;
    }
    // A valid step between two int32 coordinates is below 2^32 in size; checked before the sum,
    // which a forged varint (e.g. INT64_MIN) would overflow (found by the frame decoder fuzzer).
    constexpr std::int64_t kLargestStep = std::int64_t{1} << 32;
    if (v <= -kLargestStep || v >= kLargestStep) {
      error = "grid coordinate out of range at coordinate " + std::to_string(i);
      has_reference_ = false;
      return false;
    }
    const std::int64_t q = v + (delta ? coordinates_[i] : 0);
    if (q < std::numeric_limits<std::int32_t>::min() ||
        q > std::numeric_limits<std::int32_t>::max()) {
      error = "grid coordinate out of range at coordinate " + std::to_string(i);
      has_reference_ = false;
      return false;
    }
    next[i] = static_cast<std::int32_t>(q);
  }
  if (p != end) {
    error = std::to_string(end - p) + " unexpected bytes after the last coordinate";
    has_reference_ = false;
    return false;
  }
  coordinates_.swap(next);
  grid_ = grid;
  xyz.resize(n);
  for (std::size_t i = 0; i < n; ++i)
    xyz[i] = static_cast<T>(grid_.origin[i % 3] + grid_.spacing * coordinates_[i]);
  has_reference_ = true;
  last_ = info;
  return true;
}

}  // namespace softbody::codec
