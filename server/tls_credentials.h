// TLS for the gRPC port: a certificate chain and key from files, reread when they change (gRPC's
// FileWatcherCertificateProvider), so a renewed certificate takes effect for new connections
// without a restart and without dropping the sessions' streams.
#pragma once

#include <grpcpp/security/server_credentials.h>

#include <memory>
#include <string>

namespace softbody::server {

struct TlsFiles {
  std::string certificate, key;  // PEM; both or neither
  unsigned reload_interval_s = 10;
};

// Insecure credentials when no files are given; throws std::runtime_error naming a missing file.
std::shared_ptr<grpc::ServerCredentials> grpc_port_credentials(const TlsFiles& files);

}  // namespace softbody::server
