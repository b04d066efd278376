#include "engine/scene/json_reader.h"

#include <cmath>

namespace softbody {

namespace {
const char* type_name(const nlohmann::json& j) {
  return j.type_name();
}
}  // namespace

JsonReader::JsonReader(const nlohmann::json& j, std::string path, const std::string& source,
                       double length)
    : j_(j), path_(std::move(path)), source_(source), length_(length) {
  if (!j_.is_object())
    throw SceneError(source_ + ": " + (path_.empty() ? "/" : path_) + ": expected an object, got " +
                     type_name(j_));
}

void JsonReader::fail(const std::string& key, const std::string& problem) const {
  // An empty key: the object itself ("/obstacles/1/trajectory", not ".../trajectory/").
  const std::string where = key.empty() ? (path_.empty() ? "/" : path_) : path_of(key);
  throw SceneError(source_ + ": " + where + ": " + problem);
}

const nlohmann::json& JsonReader::value(const std::string& key) {
  // Every accessor of a required value comes here: a missing one is the scene's error, not a
  // JSON library exception.
  if (!has(key)) fail(key, "is required");
  used_.insert(key);
  return j_.at(key);
}

double JsonReader::number(const std::string& key, double fallback, int length_exponent) {
  if (!has(key)) return fallback;
  return required_number(key, length_exponent);
}

double JsonReader::required_number(const std::string& key, int length_exponent) {
  if (!has(key)) fail(key, "is required");
  const nlohmann::json& v = value(key);
  if (!v.is_number()) fail(key, std::string("expected a number, got ") + type_name(v));
  const double x = v.get<double>();
  if (!std::isfinite(x)) fail(key, "must be finite");
  return x * std::pow(length_, length_exponent);
}

int JsonReader::integer(const std::string& key, int fallback) {
  if (!has(key)) return fallback;
  const nlohmann::json& v = value(key);
  if (!v.is_number_integer()) fail(key, std::string("expected an integer, got ") + type_name(v));
  return v.get<int>();
}

bool JsonReader::boolean(const std::string& key, bool fallback) {
  if (!has(key)) return fallback;
  const nlohmann::json& v = value(key);
  if (!v.is_boolean()) fail(key, std::string("expected true or false, got ") + type_name(v));
  return v.get<bool>();
}

std::string JsonReader::string(const std::string& key, const std::string& fallback) {
  if (!has(key)) return fallback;
  const nlohmann::json& v = value(key);
  if (!v.is_string()) fail(key, std::string("expected a string, got ") + type_name(v));
  return v.get<std::string>();
}

Vec3 JsonReader::vec3(const std::string& key, const Vec3& fallback, int length_exponent) {
  if (!has(key)) return fallback;
  const nlohmann::json& v = value(key);
  if (!v.is_array() || v.size() != 3) fail(key, "expected an array of 3 numbers");
  Vec3 x;
  for (int k = 0; k < 3; ++k) {
    if (!v[static_cast<size_t>(k)].is_number())
      fail(key + "/" + std::to_string(k), "expected a number");
    x[k] = v[static_cast<size_t>(k)].get<double>() * std::pow(length_, length_exponent);
  }
  if (!x.allFinite()) fail(key, "must be finite");
  return x;
}

JsonReader JsonReader::object(const std::string& key) {
  if (!has(key)) fail(key, "is required");
  return JsonReader(value(key), path_of(key), source_, length_);
}

const nlohmann::json& JsonReader::array(const std::string& key) {
  const nlohmann::json& v = value(key);
  if (!v.is_array()) fail(key, std::string("expected an array, got ") + type_name(v));
  return v;
}

const nlohmann::json& JsonReader::raw(const std::string& key) {
  return value(key);
}

void JsonReader::finish() const {
  for (const auto& [key, v] : j_.items()) {
    if (!used_.count(key)) throw SceneError(source_ + ": " + path_of(key) + ": unknown key");
  }
}

void JsonReader::only(std::initializer_list<const char*> keys) const {
  for (const auto& [key, v] : j_.items()) {
    bool known = false;
    for (const char* k : keys) known |= key == k;
    if (!known) throw SceneError(source_ + ": " + path_of(key) + ": unknown key");
  }
}

JsonReader element_reader(const nlohmann::json& j, const std::string& array_path, size_t index,
                          const std::string& source, double length) {
  return JsonReader(j, array_path + "/" + std::to_string(index), source, length);
}

}  // namespace softbody
