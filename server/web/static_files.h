// The browser client's files (the `npm run build` output of client-web/) served from one folder.
// Every response carries the cross-origin isolation headers (COOP/COEP) a page needs for
// SharedArrayBuffer and WebAssembly threads. Paths never leave the folder.
#pragma once

#include <filesystem>
#include <optional>
#include <string>

#include "server/web/http_server.h"

namespace softbody::server {

class StaticFiles {
 public:
  explicit StaticFiles(std::filesystem::path root);
  // The file for a URL path ("/" is index.html); nullopt when there is none. A path that tries to
  // leave the folder gets 403.
  std::optional<HttpResponse> get(const std::string& url_path) const;
  bool has_index() const;
  const std::filesystem::path& root() const { return root_; }

 private:
  std::filesystem::path root_;
};

// The Content-Type of a file name by extension.
std::string content_type_for(const std::string& file_name);

}  // namespace softbody::server
