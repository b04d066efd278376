#include "server/cluster/host_status.h"

#include <google/protobuf/util/json_util.h>

namespace softbody::server {

v1::ServerStatus server_status(const SessionManager& sessions, const HostIdentity& identity) {
  const Capacity c = sessions.capacity();
  v1::ServerStatus s;
  s.set_host(identity.host);
  s.set_grpc_address(identity.grpc_address);
  s.set_http_url(identity.http_url);
  s.set_sessions(c.sessions);
  s.set_running_sessions(c.running);
  s.set_max_sessions(c.max_sessions);
  s.set_free_sessions(c.free_sessions);
  s.set_load_cores(c.load_cores);
  s.set_capacity_cores(c.capacity_cores);
  s.set_min_real_time_factor(c.min_real_time_factor);
  s.set_accepting(c.accepting());
  s.set_refusal(c.refusal);
  s.set_draining(c.draining);
  if (!identity.snapshot_store.empty()) s.set_snapshot_store(identity.snapshot_store);
  s.set_version(SOFTBODY_VERSION);
  return s;
}

std::string server_status_json(const v1::ServerStatus& status) {
  google::protobuf::util::JsonPrintOptions options;
  options.add_whitespace = true;
  options.always_print_primitive_fields = true;  // a 0 or false is information here
  std::string json;
  (void)google::protobuf::util::MessageToJsonString(status, &json, options);
  return json;
}

std::string advertised_address(const std::string& advertised, const std::string& bound, int port,
                               const std::string& host_name) {
  if (!advertised.empty()) return advertised;
  std::string host = bound.substr(0, bound.rfind(':'));
  if (host.empty() || host == "0.0.0.0" || host == "[::]" || host == "::") host = host_name;
  return host + ":" + std::to_string(port);
}

}  // namespace softbody::server
