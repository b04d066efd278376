#include "server/web/https_context.h"

#include <stdexcept>

#include "server/logging.h"

namespace softbody::server {
namespace ssl = boost::asio::ssl;

namespace {

// A server context of TLS 1.2 or newer from the PEM texts; throws naming what did not load.
std::shared_ptr<ssl::context> make_context(const TlsFiles& files, const std::string& certificate,
                                           const std::string& key) {
  auto context = std::make_shared<ssl::context>(ssl::context::tls_server);
  context->set_options(ssl::context::default_workarounds | ssl::context::no_sslv2 |
                       ssl::context::no_sslv3 | ssl::context::no_tlsv1 | ssl::context::no_tlsv1_1 |
                       ssl::context::single_dh_use);
  boost::system::error_code ec;
  context->use_certificate_chain(boost::asio::buffer(certificate), ec);
  if (ec) throw std::runtime_error(files.certificate + ": not a certificate: " + ec.message());
  // OpenSSL checks here that the key belongs to the certificate.
  context->use_private_key(boost::asio::buffer(key), ssl::context::pem, ec);
  if (ec)
    throw std::runtime_error(files.key + ": not the private key of " + files.certificate + ": " +
                             ec.message());
  return context;
}

}  // namespace

HttpsContext::HttpsContext(TlsFiles files) : files_(std::move(files)) {
  require_both(files_);
  certificate_pem_ = read_pem_file(files_.certificate);
  key_pem_ = read_pem_file(files_.key);
  context_ = make_context(files_, certificate_pem_, key_pem_);
  next_look_ = std::chrono::steady_clock::now() + std::chrono::seconds(files_.reload_interval_s);
}

std::shared_ptr<ssl::context> HttpsContext::current() {
  if (std::chrono::steady_clock::now() >= next_look_) {
    next_look_ = std::chrono::steady_clock::now() + std::chrono::seconds(files_.reload_interval_s);
    reload_if_changed();
  }
  return context_;
}

void HttpsContext::reload_if_changed() {
  try {
    std::string certificate = read_pem_file(files_.certificate);
    std::string key = read_pem_file(files_.key);
    if (certificate == certificate_pem_ && key == key_pem_) return;
    context_ = make_context(files_, certificate, key);
    certificate_pem_ = std::move(certificate);
    key_pem_ = std::move(key);
    spdlog::info("event=https_certificate_reloaded certificate={}",
                 logfmt_value(files_.certificate));
  } catch (const std::exception& e) {  // mid-renewal or broken: keep serving the old pair
    spdlog::warn("event=https_certificate_reload_failed error={}", logfmt_value(e.what()));
  }
}

}  // namespace softbody::server
