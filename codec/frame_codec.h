// The state-frame codec shared by the server and both clients (built natively and with
// Emscripten, so it depends on nothing but the standard library). Format: docs/codec.md.
//
// Positions are quantized on a uniform grid whose spacing keeps every decoded vertex within
// `error_bound` (Euclidean) of the true position: spacing = 2 * error_bound / sqrt(3). A keyframe
// stores each grid coordinate relative to the grid origin; a delta frame stores the difference
// from the previous frame's grid coordinates, which is exact, so errors never accumulate. Integers
// are zigzag varints (small motions cost one byte per coordinate).
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

namespace softbody::codec {

enum class FrameKind : std::uint8_t { kRawFloat32 = 0, kKeyframe = 1, kDelta = 2 };

inline constexpr std::uint8_t kFormatVersion = 1;
inline constexpr std::size_t kHeaderBytes = 16;  // magic(2) version kind count(4) index(4) ref(4)
inline constexpr std::size_t kGridBytes = 32;    // origin (3 float64) and spacing (float64)

struct Grid {
  double origin[3] = {0, 0, 0};
  double spacing = 1;
};

// The grid for positions around a box (min, max corners) at an error bound relative to the box
// diagonal (e.g. 1e-4): origin at the box centre.
Grid grid_for_box(const double min[3], const double max[3], double relative_error_bound);

struct FrameInfo {
  FrameKind kind = FrameKind::kRawFloat32;
  std::uint32_t vertex_count = 0;
  std::uint32_t index = 0;      // frame counter of the encoder
  std::uint32_t reference = 0;  // delta frames: the index of the frame they apply to
};

// Encodes successive frames of one stream. Not thread-safe; one per subscriber, so each delta
// refers to the frame that subscriber actually received.
class FrameEncoder {
 public:
  // keyframe_interval: frames between keyframes (>= 1). raw: float32 frames instead.
  FrameEncoder(const Grid& grid, int keyframe_interval, bool raw);
  // Appends the encoded frame of `xyz` (3 per vertex) to `out` (cleared first). A keyframe is
  // written when asked, at the interval, when the vertex count changes, or when a coordinate
  // leaves the grid's int32 range.
  void encode(std::span<const double> xyz, bool force_keyframe, std::vector<std::uint8_t>& out);
  std::uint32_t frames_encoded() const { return next_index_; }

 private:
  Grid grid_;
  int keyframe_interval_;
  bool raw_;
  std::uint32_t next_index_ = 0;
  int since_keyframe_ = 0;
  std::vector<std::int32_t> previous_;  // grid coordinates of the last frame
  std::vector<std::int32_t> current_;
};

// Decodes a stream's frames. Keeps the previous frame's grid coordinates for deltas.
class FrameDecoder {
 public:
  // Reads the header only. Returns false (and sets `error`) when malformed.
  static bool peek(std::span<const std::uint8_t> frame, FrameInfo& info, std::string& error);
  // Decodes into `xyz` (resized to 3 per vertex). Returns false with a message on a malformed
  // frame or a delta whose reference frame this decoder did not decode last; the decoder then
  // needs a keyframe.
  bool decode(std::span<const std::uint8_t> frame, std::vector<float>& xyz, std::string& error);
  bool decode(std::span<const std::uint8_t> frame, std::vector<double>& xyz, std::string& error);
  const FrameInfo& last() const { return last_; }

 private:
  template <typename T>
  bool decode_into(std::span<const std::uint8_t> frame, std::vector<T>& xyz, std::string& error);

  Grid grid_;
  bool has_reference_ = false;
  FrameInfo last_;
  std::vector<std::int32_t> coordinates_;
};

}  // namespace softbody::codec
