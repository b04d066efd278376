#include "server/auth/token_file.h"

#include <openssl/evp.h>
#include <openssl/rand.h>

#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <stdexcept>

#include "server/logging.h"

namespace softbody::server {

namespace fs = std::filesystem;

std::string sha256_hex(const std::string& data) {
  unsigned char digest[EVP_MAX_MD_SIZE];
  unsigned int length = 0;
  if (EVP_Digest(data.data(), data.size(), digest, &length, EVP_sha256(), nullptr) != 1)
    throw std::runtime_error("SHA-256 failed");
  static const char* hex = "0123456789abcdef";
  std::string out;
  for (unsigned int i = 0; i < length; ++i) {
    out += hex[digest[i] >> 4];
    out += hex[digest[i] & 15];
  }
  return out;
}

std::string new_token_secret() {
  unsigned char bytes[32];
  if (RAND_bytes(bytes, sizeof bytes) != 1) throw std::runtime_error("no random bytes");
  static const char* alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
  std::string out = "sbt_";
  unsigned bits = 0, value = 0;
  for (unsigned char b : bytes) {
    value = (value << 8) | b;
    bits += 8;
    while (bits >= 6) out += alphabet[(value >> (bits -= 6)) & 63];
  }
  if (bits > 0) out += alphabet[(value << (6 - bits)) & 63];
  return out;
}

namespace {

Quota quota_from(const nlohmann::json& q, const std::string& where) {
  Quota quota;
  if (!q.is_object()) throw std::runtime_error(where + ": expected an object");
  for (const auto& [key, value] : q.items()) {
    if (!value.is_number() || value.get<double>() < 0)
      throw std::runtime_error(where + "/" + key + ": expected a number >= 0");
    if (key == "max_sessions")
      quota.max_sessions = value.get<int>();
    else if (key == "max_upload_vertices")
      quota.max_upload_vertices = value.get<long>();
    else if (key == "max_tool_rate_hz")
      quota.max_tool_rate_hz = value.get<double>();
    else if (key == "max_subscriptions")
      quota.max_subscriptions = value.get<int>();
    else
      throw std::runtime_error(where + "/" + key +
                               ": unknown quota (max_sessions, max_upload_vertices, "
                               "max_tool_rate_hz, max_subscriptions)");
  }
  return quota;
}

}  // namespace

Quota parse_quota(const std::string& json_text, const std::string& where) {
  const nlohmann::json q = nlohmann::json::parse(json_text, nullptr, false);
  if (q.is_discarded()) throw std::runtime_error(where + ": not JSON");
  return quota_from(q, where);
}

std::map<std::string, Caller> TokenFile::parse(const fs::path& path) {
  std::ifstream in(path);
  if (!in) throw std::runtime_error(path.string() + ": cannot be read");
  std::stringstream text;
  text << in.rdbuf();
  const nlohmann::json doc = nlohmann::json::parse(text.str(), nullptr, false);
  const std::string file = path.string();
  if (doc.is_discarded() || !doc.is_object() || !doc.contains("tokens") ||
      !doc["tokens"].is_array())
    throw std::runtime_error(file + ": expected {\"tokens\": [...]} (docs/security.md)");
  std::map<std::string, Caller> table;
  for (std::size_t i = 0; i < doc["tokens"].size(); ++i) {
    const nlohmann::json& t = doc["tokens"][i];
    const std::string where = file + ": /tokens/" + std::to_string(i);
    if (!t.is_object()) throw std::runtime_error(where + ": expected an object");
    for (const auto& [key, value] : t.items())
      if (key != "name" && key != "role" && key != "sha256" && key != "quota")
        throw std::runtime_error(where + "/" + key + ": unknown key");
    Caller c;
    c.authenticated = true;
    if (!t.contains("name") || !t["name"].is_string() || t["name"].get<std::string>().empty())
      throw std::runtime_error(where + "/name: a non-empty string is required");
    c.subject = t["name"];
    const auto role = parse_role(t.value("role", std::string()));
    if (!role) throw std::runtime_error(where + "/role: must be trainee, instructor or admin");
    c.role = *role;
    const std::string hash = t.value("sha256", std::string());
    if (hash.size() != 64 || hash.find_first_not_of("0123456789abcdef") != std::string::npos)
      throw std::runtime_error(where + "/sha256: 64 lowercase hex digits are required");
    if (t.contains("quota")) c.quota = quota_from(t["quota"], where + "/quota");
    if (!table.emplace(hash, c).second)
      throw std::runtime_error(where + "/sha256: the same secret is listed twice");
  }
  return table;
}

TokenFile::TokenFile(fs::path path) : path_(std::move(path)), watch_(path_) {
  by_hash_ = parse(path_);
}

void TokenFile::reload_if_changed() {
  if (!watch_.changed()) return;  // a broken file is not retried every second: its next edit is
  try {
    by_hash_ = parse(path_);
    spdlog::info("event=tokens_reloaded file={} tokens={}", logfmt_value(path_.string()),
                 by_hash_.size());
  } catch (const std::exception& e) {
    spdlog::error("event=tokens_reload_failed error={} (the previous tokens stay)",
                  logfmt_value(e.what()));
  }
}

std::optional<Caller> TokenFile::find(const std::string& secret) {
  const std::string hash = sha256_hex(secret);
  std::lock_guard lock(mutex_);
  reload_if_changed();
  // Looked up by the secret's hash: timing reveals at most digest bits, not the secret.
  const auto it = by_hash_.find(hash);
  if (it == by_hash_.end()) return std::nullopt;
  return it->second;
}

int TokenFile::size() const {
  std::lock_guard lock(mutex_);
  return static_cast<int>(by_hash_.size());
}

}  // namespace softbody::server
