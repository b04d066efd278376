// `--set KEY=VALUE` overrides of scene documents (softbody-sim, softbody-client create,
// CreateSession.overrides, softbody-load): one path syntax everywhere, dotted or JSON pointer.
#include <algorithm>
#include <string>
#include <vector>

#include "engine/scene/scene.h"

namespace softbody {
namespace {

// "a.b.1" or "/a/b/1" (RFC 6901: "~1" is '/', "~0" is '~') into its parts.
std::vector<std::string> path_parts(const std::string& path, const std::string& error_prefix) {
  std::vector<std::string> parts;
  const bool pointer = !path.empty() && path.front() == '/';
  const char separator = pointer ? '/' : '.';
  std::string part;
  for (std::size_t i = pointer ? 1 : 0; i <= path.size(); ++i) {
    if (i == path.size() || path[i] == separator) {
      parts.push_back(part);
      part.clear();
    } else if (pointer && path[i] == '~') {
      const char next = i + 1 < path.size() ? path[i + 1] : '\0';
      if (next != '0' && next != '1')
        throw SceneError(error_prefix + "'~' must be followed by 0 or 1 in a JSON pointer");
      part += next == '0' ? '~' : '/';
      ++i;
    } else {
      part += path[i];
    }
  }
  if (path.empty() || (pointer && path.size() == 1) ||
      std::any_of(parts.begin(), parts.end(), [](const std::string& p) { return p.empty(); }))
    throw SceneError(error_prefix + "malformed path (expected a.b.c or /a/b/c)");
  return parts;
}

bool is_index(const std::string& part) {
  return !part.empty() && part.size() < 10 &&
         std::all_of(part.begin(), part.end(), [](char c) { return c >= '0' && c <= '9'; });
}

const char* kind(const nlohmann::json& node) {
  return node.is_number() ? "a number" : node.is_string() ? "a string" : "a boolean";
}

}  // namespace

void apply_override(nlohmann::json& document, const std::string& assignment,
                    const std::string& source) {
  const std::size_t eq = assignment.find('=');
  if (eq == std::string::npos)
    throw SceneError((source.empty() ? "" : source + ": ") + "--set " + assignment +
                     ": expected KEY=VALUE");
  const std::string path = assignment.substr(0, eq), text = assignment.substr(eq + 1);
  const std::string error_prefix = (source.empty() ? "" : source + ": ") + "--set " + path + ": ";
  const std::vector<std::string> parts = path_parts(path, error_prefix);
  nlohmann::json value = nlohmann::json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (value.is_discarded()) value = text;  // a bare word is a string

  nlohmann::json* node = &document;
  std::string where;  // the path walked so far, for messages
  for (std::size_t i = 0; i < parts.size(); ++i) {
    const std::string& part = parts[i];
    const bool last = i + 1 == parts.size();
    if (node->is_null()) *node = nlohmann::json::object();
    if (node->is_array()) {
      if (!is_index(part))
        throw SceneError(error_prefix + "'" + (where.empty() ? "/" : where) + "' is an array: '" +
                         part + "' is not an index");
      const std::size_t index = std::stoul(part);
      if (index > node->size() || (index == node->size() && !last))
        throw SceneError(error_prefix + "'" + where + "' has " + std::to_string(node->size()) +
                         " entries: index " + part + " is out of range");
      if (index == node->size()) {
        node->push_back(value);  // the array's size appends
        return;
      }
      node = &(*node)[index];
    } else if (node->is_object()) {
      node = &(*node)[part];
    } else {
      throw SceneError(error_prefix + "'" + where + "' is " + kind(*node) +
                       ", not an object or array");
    }
    where += "/" + part;
  }
  *node = value;
}

}  // namespace softbody
