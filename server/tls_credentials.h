// TLS for the gRPC port: a certificate chain and key from files, reread when they change (gRPC's
// FileWatcherCertificateProvider), so a renewed certificate takes effect for new connections
// without a restart and without dropping the sessions' streams.
#pragma once

#include <grpcpp/security/server_credentials.h>

#include <memory>

#include "server/tls_files.h"

namespace softbody::server {

// Insecure credentials when no files are given; throws std::runtime_error naming a missing file.
std::shared_ptr<grpc::ServerCredentials> grpc_port_credentials(const TlsFiles& files);

}  // namespace softbody::server
