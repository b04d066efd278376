// What the browser does with each state frame, in one place so that it runs as WebAssembly next to
// the decoder: decode (the shared codec), keep the two newest states, interpolate between them for
// display, and compute smooth vertex normals of the displayed surface. Standard C++ only; the
// Emscripten bindings are in bindings.cpp and the native build tests it like any other code.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "codec/frame_codec.h"

namespace softbody::codec {

class FramePipeline {
 public:
  // Sizes every buffer for a surface of `vertex_count` vertices and `triangles` (3 indices each).
  // The buffers are never reallocated afterwards, so views of them stay valid. False with error()
  // when a triangle names a vertex beyond the count (the pipeline is then empty).
  bool reset(std::uint32_t vertex_count, std::span<const std::uint32_t> triangles);

  // Where the caller writes an incoming frame of `bytes` bytes (grown when needed).
  std::uint8_t* input(std::size_t bytes);
  // Decodes the frame in input()[0, bytes). The newest state becomes the interpolation target;
  // the start is what was displayed last, so motion stays continuous when a frame arrives early
  // or late, or, when no interpolate() came since the previous push (frames faster than draws),
  // the previous frame, so the display is never more than one frame behind. False with error()
  // on a malformed frame or one of another size.
  bool push(std::size_t bytes);
  // Displayed positions = start + alpha (target - start), alpha clamped to [0, 1].
  void interpolate(double alpha);
  // Area-weighted smooth normals of the displayed positions (unit length, zero for isolated
  // vertices).
  void compute_normals();

  const std::vector<float>& displayed() const { return displayed_; }
  const std::vector<float>& normals() const { return normals_; }
  const std::vector<float>& target() const { return target_; }
  std::uint32_t vertex_count() const { return vertex_count_; }
  std::uint32_t frames() const { return frames_; }
  const std::string& error() const { return error_; }

 private:
  std::uint32_t vertex_count_ = 0;
  std::vector<std::uint32_t> triangles_;
  std::vector<std::uint8_t> input_;
  std::vector<float> decoded_, start_, target_, displayed_, normals_;
  FrameDecoder decoder_;
  std::uint32_t frames_ = 0;
  bool shown_since_push_ = false;  // an interpolate() since the last push()
  std::string error_;
};

}  // namespace softbody::codec
