#include "server/web/static_files.h"

#include <algorithm>
#include <fstream>
#include <map>
#include <sstream>

namespace softbody::server {
namespace {

std::vector<std::pair<std::string, std::string>> isolation_headers(bool immutable) {
  return {{"Cross-Origin-Opener-Policy", "same-origin"},
          {"Cross-Origin-Embedder-Policy", "require-corp"},
          {"Cross-Origin-Resource-Policy", "same-origin"},
          {"X-Content-Type-Options", "nosniff"},
          // Vite names bundled assets by content hash: they never change under one name.
          {"Cache-Control", immutable ? "public, max-age=31536000, immutable" : "no-cache"}};
}

}  // namespace

std::string content_type_for(const std::string& file_name) {
  static const std::map<std::string, std::string> types = {
      {".html", "text/html; charset=utf-8"},
      {".js", "text/javascript; charset=utf-8"},
      {".mjs", "text/javascript; charset=utf-8"},
      {".css", "text/css; charset=utf-8"},
      {".json", "application/json"},
      {".wasm", "application/wasm"},
      {".svg", "image/svg+xml"},
      {".png", "image/png"},
      {".ico", "image/x-icon"},
      {".map", "application/json"},
      {".txt", "text/plain; charset=utf-8"}};
  const std::string ext = std::filesystem::path(file_name).extension().string();
  auto it = types.find(ext);
  return it == types.end() ? "application/octet-stream" : it->second;
}

StaticFiles::StaticFiles(std::filesystem::path root)
    : root_(std::filesystem::weakly_canonical(std::move(root))) {}

bool StaticFiles::has_index() const {
  return std::filesystem::is_regular_file(root_ / "index.html");
}

std::optional<HttpResponse> StaticFiles::get(const std::string& url_path) const {
  if (url_path.empty() || url_path[0] != '/') return std::nullopt;
  std::string relative = url_path.substr(1);
  if (relative.empty() || relative.back() == '/') relative += "index.html";
  if (relative.find('\0') != std::string::npos || relative.find('%') != std::string::npos ||
      relative.find('\\') != std::string::npos)
    return HttpResponse{400, "text/plain; charset=utf-8", "bad path\n", {}};
  const std::filesystem::path file = std::filesystem::weakly_canonical(root_ / relative);
  // Inside the root only (".." and symbolic links out of it are refused).
  if (std::mismatch(root_.begin(), root_.end(), file.begin(), file.end()).first != root_.end())
    return HttpResponse{403, "text/plain; charset=utf-8", "forbidden\n", {}};
  if (!std::filesystem::is_regular_file(file)) return std::nullopt;
  std::ifstream in(file, std::ios::binary);
  std::ostringstream body;
  body << in.rdbuf();
  const bool hashed = relative.rfind("assets/", 0) == 0;
  return HttpResponse{200, content_type_for(file.string()), std::move(body).str(),
                      isolation_headers(hashed)};
}

}  // namespace softbody::server
