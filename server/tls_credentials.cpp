#include "server/tls_credentials.h"

#include <grpcpp/security/tls_certificate_provider.h>
#include <grpcpp/security/tls_credentials_options.h>

#include <filesystem>
#include <fstream>
#include <stdexcept>

namespace softbody::server {

std::shared_ptr<grpc::ServerCredentials> grpc_port_credentials(const TlsFiles& files) {
  if (files.certificate.empty() && files.key.empty()) return grpc::InsecureServerCredentials();
  if (files.certificate.empty() || files.key.empty())
    throw std::runtime_error("--tls-cert and --tls-key go together");
  for (const std::string& path : {files.certificate, files.key}) {
    std::ifstream in(path);
    std::string first;
    std::getline(in, first);
    if (!in || first.rfind("-----BEGIN", 0) != 0)
      throw std::runtime_error(path + ": not a readable PEM file");
  }
  auto provider = std::make_shared<grpc::experimental::FileWatcherCertificateProvider>(
      files.key, files.certificate, files.reload_interval_s);
  grpc::experimental::TlsServerCredentialsOptions options(provider);
  options.watch_identity_key_cert_pairs();
  options.set_cert_request_type(GRPC_SSL_DONT_REQUEST_CLIENT_CERTIFICATE);
  return grpc::experimental::TlsServerCredentials(options);
}

}  // namespace softbody::server
