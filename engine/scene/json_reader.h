// Typed access to one JSON object of a scene, tracking its path for error messages and the keys
// read, so that finish() can reject unknown keys.
#pragma once

#include <initializer_list>
#include <nlohmann/json.hpp>
#include <set>
#include <string>

#include "engine/scene/scene.h"
#include "engine/types.h"

namespace softbody {

class JsonReader {
 public:
  // `length` is the scene's length unit in metres; quantities are converted by length^exponent.
  JsonReader(const nlohmann::json& j, std::string path, const std::string& source, double length);

  bool has(const std::string& key) const { return j_.contains(key); }
  double number(const std::string& key, double fallback, int length_exponent = 0);
  double required_number(const std::string& key, int length_exponent = 0);
  int integer(const std::string& key, int fallback);
  bool boolean(const std::string& key, bool fallback);
  std::string string(const std::string& key, const std::string& fallback);
  Vec3 vec3(const std::string& key, const Vec3& fallback, int length_exponent = 0);
  JsonReader object(const std::string& key);
  const nlohmann::json& array(const std::string& key);  // must be an array
  const nlohmann::json& raw(const std::string& key);    // any value, marked as used
  std::string path_of(const std::string& key) const { return path_ + "/" + key; }
  double length() const { return length_; }
  const std::string& source() const { return source_; }
  // Throws for any key not read.
  void finish() const;
  // Throws at once for a key not in `keys`: for objects with required keys, so that a misspelt
  // key ("Young") is reported as unknown rather than as the required one missing ("E").
  void only(std::initializer_list<const char*> keys) const;
  [[noreturn]] void fail(const std::string& key, const std::string& problem) const;

 private:
  const nlohmann::json& value(const std::string& key);
  const nlohmann::json& j_;
  std::string path_;
  const std::string& source_;
  double length_;
  std::set<std::string> used_;
};

// Reader for an element of an array: path "<array path>/<index>".
JsonReader element_reader(const nlohmann::json& j, const std::string& array_path, size_t index,
                          const std::string& source, double length);

}  // namespace softbody
