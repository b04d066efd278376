// The rigid tool surfaces a server offers to ToolCommand's MESH shape (issue 22): the manifest
// meshes/tools/tools.json beside the scenes folder names each surface's file (OBJ or STL), its
// units and what it is. Read once at start; an entry that does not read is logged and left out
// (the server still starts); the surfaces are shared by every tool that uses them.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "engine/contact/rigid_surface.h"

namespace softbody::server {

class ToolMeshes {
 public:
  struct Entry {
    std::string name, description;
    std::shared_ptr<const RigidSurface> surface;  // in metres, in the tool's own frame
  };
  ToolMeshes() = default;
  // Reads `scenes_dir`/../meshes/tools/tools.json (none there: no tool meshes).
  explicit ToolMeshes(const std::string& scenes_dir);

  // Null when there is no such tool.
  std::shared_ptr<const RigidSurface> find(const std::string& name) const;
  const std::vector<Entry>& entries() const { return entries_; }
  std::string names() const;  // "blade, probe" (or "none")

 private:
  std::vector<Entry> entries_;
};

}  // namespace softbody::server
