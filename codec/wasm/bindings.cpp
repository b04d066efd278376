// Emscripten bindings of FramePipeline for the browser client (client-web/src/codec/). Buffers are
// handed to JavaScript as typed-array views of WebAssembly memory, not copies: three.js uploads
// the displayed positions and normals straight from them. Memory never grows (fixed
// INITIAL_MEMORY), so the views stay valid until the next reset().
#include <emscripten/bind.h>
#include <emscripten/val.h>

#include "codec/wasm/frame_pipeline.h"

namespace {

using emscripten::val;
using softbody::codec::FramePipeline;

val float_view(const std::vector<float>& v) {
  return val(emscripten::typed_memory_view(v.size(), v.data()));
}

// JavaScript passes the triangles as a Uint32Array; copied once per session.
bool reset(FramePipeline& p, std::uint32_t vertex_count, const val& triangles) {
  const std::vector<std::uint32_t> t =
      emscripten::convertJSArrayToNumberVector<std::uint32_t>(triangles);
  return p.reset(vertex_count, t);
}

// A view of the input buffer with room for `bytes`; the caller copies the frame into it.
val input(FramePipeline& p, std::size_t bytes) {
  return val(emscripten::typed_memory_view(bytes, p.input(bytes)));
}

val displayed(const FramePipeline& p) {
  return float_view(p.displayed());
}
val normals(const FramePipeline& p) {
  return float_view(p.normals());
}
val target(const FramePipeline& p) {
  return float_view(p.target());
}

}  // namespace

EMSCRIPTEN_BINDINGS(softbody_codec) {
  emscripten::class_<FramePipeline>("FramePipeline")
      .constructor<>()
      .function("reset", &reset)
      .function("input", &input)
      .function("push", &FramePipeline::push)
      .function("interpolate", &FramePipeline::interpolate)
      .function("computeNormals", &FramePipeline::compute_normals)
      .function("displayed", &displayed)
      .function("normals", &normals)
      .function("target", &target)
      .function("vertexCount", &FramePipeline::vertex_count)
      .function("frames", &FramePipeline::frames)
      .function("error", &FramePipeline::error);
}
