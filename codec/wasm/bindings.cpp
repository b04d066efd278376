// Emscripten bindings of FramePipeline for the browser client (client-web/src/codec/). Buffers are
// handed to JavaScript as typed-array views of WebAssembly memory, not copies: three.js uploads
// the displayed positions and normals straight from them. Memory never grows (fixed
// INITIAL_MEMORY), so the views stay valid until the next reset().
#include <emscripten/bind.h>
#include <emscripten/val.h>

#include "codec/compact_compliance.h"
#include "codec/tool_contact.h"
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

// A constraint-contact tool's contact problem (ForceReply.contact_problem), re-solved for the
// cursor's tool position every frame (codec/tool_contact.h).
class ToolContactSolver {
 public:
  // False (and empty) when the arrays do not fit `contacts`.
  // `compliance` is W whole (3m x 3m) or, with `upper` true, its upper triangle as the server
  // encodes it (ContactProblemModel.compliance_upper, codec/compact_compliance.h).
  bool load(double x, double y, double z, int contacts, const val& compliance, bool upper,
            const val& free_motion, const val& friction, const val& frames, const val& forces) {
    using emscripten::convertJSArrayToNumberVector;
    model_ = {};
    const auto n = static_cast<std::size_t>(contacts < 0 ? 0 : contacts);
    softbody::codec::ToolContactModel m;
    m.reference_position = {x, y, z};
    m.problem.contacts = static_cast<int>(n);
    if (upper) {
      const std::vector<float> triangle = convertJSArrayToNumberVector<float>(compliance);
      if (!softbody::codec::decode_compliance_upper(triangle.data(), triangle.size(),
                                                    static_cast<int>(3 * n), m.problem.w))
        return false;
    } else {
      m.problem.w = convertJSArrayToNumberVector<double>(compliance);
    }
    m.problem.delta_free = convertJSArrayToNumberVector<double>(free_motion);
    m.problem.mu = convertJSArrayToNumberVector<double>(friction);
    m.frames = convertJSArrayToNumberVector<double>(frames);
    m.lambda = convertJSArrayToNumberVector<double>(forces);
    if (m.problem.w.size() != 9 * n * n || m.problem.delta_free.size() != 3 * n ||
        m.problem.mu.size() != n || m.frames.size() != 9 * n || m.lambda.size() != 3 * n)
      return false;
    model_ = std::move(m);
    return true;
  }
  bool empty() const { return model_.empty(); }
  // The force on the tool at (x, y, z) [N], as [fx, fy, fz].
  val force(double x, double y, double z) {
    const std::array<double, 3> f = softbody::codec::evaluate(model_, {x, y, z});
    val out = val::array();
    for (double c : f) out.call<void>("push", c);
    return out;
  }

 private:
  softbody::codec::ToolContactModel model_;
};

}  // namespace

EMSCRIPTEN_BINDINGS(softbody_codec) {
  emscripten::class_<ToolContactSolver>("ToolContactSolver")
      .constructor<>()
      .function("load", &ToolContactSolver::load)
      .function("empty", &ToolContactSolver::empty)
      .function("force", &ToolContactSolver::force);
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
