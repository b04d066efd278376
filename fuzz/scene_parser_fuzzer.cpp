// libFuzzer target: scene documents and --set overrides, as a client sends them (CreateSession's
// scene_json and overrides). Input: the document, then optionally "\n--set\n" and one override
// per line. Scenes name a generated box mesh (files are not read); documents asking for more than
// 1,000 cells are skipped: slow, not wrong (the server caps mesh sizes before stepping). A 3,600
// cell box took 1-3 s under ASan here and hit libFuzzer's 10 s timeout on a loaded machine; the
// parser's paths do not depend on the box's size.
#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>

#include "engine/scene/scene.h"

namespace {

bool small_enough(const nlohmann::json& doc) {
  if (!doc.is_object() || !doc.contains("mesh") || !doc["mesh"].is_object()) return true;
  const nlohmann::json& mesh = doc["mesh"];
  if (mesh.contains("file")) return false;  // the fuzzer reads no files
  if (!mesh.contains("box") || !mesh["box"].is_object()) return true;
  const nlohmann::json& cells = mesh["box"].value("cells", nlohmann::json());
  if (!cells.is_array()) return true;
  double product = 1;
  for (const auto& c : cells) product *= c.is_number() ? std::max(1.0, c.get<double>()) : 1.0;
  return product <= 1000;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size > 64 * 1024) return 0;
  const std::string input(reinterpret_cast<const char*>(data), size);
  const auto split = input.find("\n--set\n");
  nlohmann::json doc =
      nlohmann::json::parse(input.substr(0, split), nullptr, /*allow_exceptions=*/false);
  if (doc.is_discarded()) return 0;
  try {
    if (split != std::string::npos) {
      std::size_t at = split + 7;
      while (at < input.size()) {
        const auto end = input.find('\n', at);
        softbody::apply_override(doc, input.substr(at, end - at), "fuzz");
        if (end == std::string::npos) break;
        at = end + 1;
      }
    }
    if (!small_enough(doc)) return 0;
    softbody::build_scene(doc, "fuzz", "/nonexistent");
  } catch (const softbody::SceneError&) {
  } catch (const nlohmann::json::exception&) {
  }
  return 0;
}
