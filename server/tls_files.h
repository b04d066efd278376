// The certificate and key files both TLS ports are served with (--tls-cert, --tls-key): PEM files
// a site renews in place, reread every --tls-reload-s so a renewal needs no restart.
#pragma once

#include <string>

namespace softbody::server {

struct TlsFiles {
  std::string certificate, key;  // PEM; both or neither
  unsigned reload_interval_s = 10;

  bool enabled() const { return !certificate.empty() || !key.empty(); }
};

// Throws std::runtime_error when only one of the two files is named.
void require_both(const TlsFiles& files);

// The whole of a PEM file; throws std::runtime_error naming the file when it cannot be read or
// does not start like PEM.
std::string read_pem_file(const std::string& path);

}  // namespace softbody::server
