#include "codec/wasm/frame_pipeline.h"

#include <algorithm>
#include <cmath>

namespace softbody::codec {

bool FramePipeline::reset(std::uint32_t vertex_count, std::span<const std::uint32_t> triangles) {
  error_.clear();
  for (std::uint32_t index : triangles) {
    if (index >= vertex_count) {
      error_ = "triangle index " + std::to_string(index) + " beyond the " +
               std::to_string(vertex_count) + " surface vertices";
      vertex_count = 0;
      triangles = {};
      break;
    }
  }
  vertex_count_ = vertex_count;
  triangles_.assign(triangles.begin(), triangles.end());
  const std::size_t n = 3 * static_cast<std::size_t>(vertex_count);
  decoded_.assign(n, 0.0f);
  start_.assign(n, 0.0f);
  target_.assign(n, 0.0f);
  displayed_.assign(n, 0.0f);
  normals_.assign(n, 0.0f);
  decoder_ = FrameDecoder();
  frames_ = 0;
  shown_since_push_ = false;
  return error_.empty();
}

std::uint8_t* FramePipeline::input(std::size_t bytes) {
  if (input_.size() < bytes) input_.resize(bytes);
  return input_.data();
}

bool FramePipeline::push(std::size_t bytes) {
  if (bytes > input_.size()) {
    error_ = "frame larger than the input buffer";
    return false;
  }
  FrameInfo info;
  const std::span<const std::uint8_t> frame(input_.data(), bytes);
  if (!FrameDecoder::peek(frame, info, error_)) return false;
  if (info.vertex_count != vertex_count_) {
    error_ = "frame has " + std::to_string(info.vertex_count) + " vertices, the surface " +
             std::to_string(vertex_count_);
    return false;
  }
  // decoded_ keeps its capacity: the decoder resizes it to the same size.
  if (!decoder_.decode(frame, decoded_, error_)) return false;
  if (frames_ == 0) {
    start_ = decoded_;
    displayed_ = decoded_;
  } else if (shown_since_push_) {
    start_ = displayed_;
  } else {
    // A second frame before any draw (a busy page gets its frames in bursts just before it
    // draws): starting from the unchanged display again would leave alpha near 0 at every draw
    // and freeze the view. Start from the frame this one replaces: at most one frame behind.
    start_ = target_;
  }
  target_ = decoded_;
  shown_since_push_ = false;
  ++frames_;
  return true;
}

void FramePipeline::interpolate(double alpha) {
  const float a = static_cast<float>(std::clamp(alpha, 0.0, 1.0));
  const std::size_t n = displayed_.size();
  for (std::size_t i = 0; i < n; ++i) displayed_[i] = start_[i] + a * (target_[i] - start_[i]);
  shown_since_push_ = true;
}

void FramePipeline::compute_normals() {
  std::fill(normals_.begin(), normals_.end(), 0.0f);
  const float* p = displayed_.data();
  float* nrm = normals_.data();
  for (std::size_t t = 0; t + 2 < triangles_.size(); t += 3) {
    const std::size_t a = 3 * triangles_[t], b = 3 * triangles_[t + 1], c = 3 * triangles_[t + 2];
    const float e1[3] = {p[b] - p[a], p[b + 1] - p[a + 1], p[b + 2] - p[a + 2]};
    const float e2[3] = {p[c] - p[a], p[c + 1] - p[a + 1], p[c + 2] - p[a + 2]};
    // The cross product's length is twice the area: summing it weights faces by area.
    const float n[3] = {e1[1] * e2[2] - e1[2] * e2[1], e1[2] * e2[0] - e1[0] * e2[2],
                        e1[0] * e2[1] - e1[1] * e2[0]};
    for (std::size_t v : {a, b, c})
      for (int k = 0; k < 3; ++k) nrm[v + static_cast<std::size_t>(k)] += n[k];
  }
  for (std::size_t v = 0; v < normals_.size(); v += 3) {
    const float length =
        std::sqrt(nrm[v] * nrm[v] + nrm[v + 1] * nrm[v + 1] + nrm[v + 2] * nrm[v + 2]);
    if (length > 0) {
      for (int k = 0; k < 3; ++k) nrm[v + static_cast<std::size_t>(k)] /= length;
    }
  }
}

}  // namespace softbody::codec
