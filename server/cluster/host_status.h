// This host as allocators and operators see it: its advertised addresses and its capacity, as the
// ServerStatus message (gRPC GetServerStatus) and as JSON (GET /status, protobuf's JSON mapping).
#pragma once

#include <mutex>
#include <string>

#include "server/sessions/session_manager.h"
#include "softbody/v1/cluster.pb.h"

namespace softbody::server {

struct HostIdentity {
  std::string host;            // the machine's (pod's) name
  std::string grpc_address;    // host:port clients and other hosts reach this host's gRPC at
  std::string http_url;        // base URL of the HTTP port (browser client, /ws)
  bool advertised = false;     // given by the operator (--advertise-grpc): put in SessionInfo
  std::string snapshot_store;  // the folder drained sessions go to; empty: none
};

// Set once the ports are known, read by request handlers.
class HostIdentityCell {
 public:
  void set(HostIdentity identity) {
    std::lock_guard lock(mutex_);
    identity_ = std::move(identity);
  }
  HostIdentity get() const {
    std::lock_guard lock(mutex_);
    return identity_;
  }

 private:
  mutable std::mutex mutex_;
  HostIdentity identity_;
};

v1::ServerStatus server_status(const SessionManager& sessions, const HostIdentity& identity);
std::string server_status_json(const v1::ServerStatus& status);

// The address others reach a listener at: `advertised` if given, else the bound address with the
// real port, the wildcard host replaced by this machine's name.
std::string advertised_address(const std::string& advertised, const std::string& bound, int port,
                               const std::string& host_name);

}  // namespace softbody::server
