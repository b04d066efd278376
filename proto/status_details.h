// Error details in the gRPC rich error model: a google.rpc.Status with Any details travels in the
// grpc-status-details-bin trailer (grpc::Status::error_details()). softbody uses it for one detail,
// SessionMoved: where a session went, so that clients follow it.
#pragma once

#include <grpcpp/support/status.h>

#include <optional>

#include "softbody/v1/cluster.pb.h"

namespace softbody::v1 {

// A status with `moved` attached as its detail.
grpc::Status status_with_moved(grpc::StatusCode code, const std::string& message,
                               const SessionMoved& moved);

// The SessionMoved detail of `status`, if it has one.
std::optional<SessionMoved> moved_detail(const grpc::Status& status);

}  // namespace softbody::v1
