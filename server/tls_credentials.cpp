#include "server/tls_credentials.h"

#include <grpcpp/security/tls_certificate_provider.h>
#include <grpcpp/security/tls_credentials_options.h>

namespace softbody::server {

std::shared_ptr<grpc::ServerCredentials> grpc_port_credentials(const TlsFiles& files) {
  if (!files.enabled()) return grpc::InsecureServerCredentials();
  require_both(files);
  for (const std::string& path : {files.certificate, files.key}) read_pem_file(path);
  auto provider = std::make_shared<grpc::experimental::FileWatcherCertificateProvider>(
      files.key, files.certificate, files.reload_interval_s);
  grpc::experimental::TlsServerCredentialsOptions options(provider);
  options.watch_identity_key_cert_pairs();
  options.set_cert_request_type(GRPC_SSL_DONT_REQUEST_CLIENT_CERTIFICATE);
  return grpc::experimental::TlsServerCredentials(options);
}

}  // namespace softbody::server
