#include "server/tls_files.h"

#include <fstream>
#include <sstream>
#include <stdexcept>

namespace softbody::server {

void require_both(const TlsFiles& files) {
  if (files.certificate.empty() || files.key.empty())
    throw std::runtime_error("--tls-cert and --tls-key go together");
}

std::string read_pem_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  if (!in || text.str().rfind("-----BEGIN", 0) != 0)
    throw std::runtime_error(path + ": not a readable PEM file");
  return text.str();
}

}  // namespace softbody::server
