// libFuzzer target: every mesh loader a client can reach (uploads, scene files). The first byte
// picks the format; for TetGen the rest is split at the first NUL into .node and .ele. Any input
// must end in a mesh or a MeshError, never a crash, a hang or a sanitizer report.
#include <cstdint>
#include <string_view>

#include "engine/io/mesh_error.h"
#include "engine/mesh/validation.h"

namespace {
constexpr softbody::MeshFormat kFormats[] = {
    softbody::MeshFormat::kGmsh, softbody::MeshFormat::kMedit, softbody::MeshFormat::kTetGen,
    softbody::MeshFormat::kVtkLegacy, softbody::MeshFormat::kVtu};
}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size < 1 || size > (1 << 20)) return 0;
  const softbody::MeshFormat format = kFormats[data[0] % std::size(kFormats)];
  std::string_view content(reinterpret_cast<const char*>(data + 1), size - 1), elements;
  if (format == softbody::MeshFormat::kTetGen) {
    const auto split = content.find('\0');
    if (split != std::string_view::npos) {
      elements = content.substr(split + 1);
      content = content.substr(0, split);
    }
  }
  try {
    softbody::load_mesh_content(format, "fuzz", content, elements);
  } catch (const softbody::MeshError&) {
  }
  return 0;
}
