// Conversions between API messages and engine/server types, with validation that names the field
// at fault.
#pragma once

#include "server/sessions/session.h"
#include "server/sessions/tool_meshes.h"
#include "softbody/v1/interact.pb.h"
#include "softbody/v1/session.pb.h"
#include "softbody/v1/state.pb.h"

namespace softbody::server {

void to_proto(const Vec3& v, v1::Vec3& out);
void to_proto(const codec::Vec3d& v, v1::Vec3& out);
void to_proto(const codec::Mat3d& m, v1::Mat3& out);
void to_proto(const BoundingBox& box, v1::BoundingBox& out);
void to_proto(const PublishedState& state, v1::StepStatistics& out);
void to_proto(const codec::CouplingModel& model, v1::CouplingModel& out);

// The compliance as the command's encoding asked (codec/compact_compliance.h for UPPER_FLOAT).
void to_proto(const codec::ToolContactModel& model, v1::ContactProblemEncoding encoding,
              v1::ContactProblemModel& out);

// Validated tool command. Returns an empty string or the problem ("pose.position: not finite").
// A MESH tool's surface is looked up in `tool_meshes`.
std::string tool_input_from_proto(const v1::ToolCommand& c, Index num_vertices,
                                  const ToolMeshes& tool_meshes, ToolInput& out);

}  // namespace softbody::server
