// The tools' contact models (ToolCommand.contact_model) by the names the native tools' command
// lines and reports use: softbody-client --contact, softbody-load --contact, the haptic report.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "softbody/v1/interact.pb.h"

namespace softbody::client {

// What --contact accepts.
inline const std::vector<std::string>& contact_model_names() {
  static const std::vector<std::string> names{"auto", "penalty", "constraint"};
  return names;
}

inline std::optional<v1::ContactModel> contact_model_named(std::string_view name) {
  if (name == "auto") return v1::CONTACT_MODEL_AUTO;
  if (name == "penalty") return v1::CONTACT_MODEL_PENALTY;
  if (name == "constraint") return v1::CONTACT_MODEL_CONSTRAINT;
  return std::nullopt;
}

// "unknown" for UNSPECIFIED (a server before ForceReply.contact_model) or a newer value.
inline const char* contact_model_name(int model) {
  switch (model) {
    case v1::CONTACT_MODEL_AUTO:
      return "auto";
    case v1::CONTACT_MODEL_PENALTY:
      return "penalty";
    case v1::CONTACT_MODEL_CONSTRAINT:
      return "constraint";
    default:
      return "unknown";
  }
}

}  // namespace softbody::client
