// Answers one tool command against its session (gRPC Interact streams and the browser gateway):
// the command is validated, becomes the tool's pose for the next step, and the reply carries the
// force at the command's pose with the tool's coupling model. An invalid command is rejected in
// the reply (zero force, previous pose kept) without ending the stream; so is a command beyond
// the caller's max_tool_rate_hz quota.
#pragma once

#include "server/auth/quota.h"
#include "server/sessions/session.h"
#include "server/sessions/tool_meshes.h"
#include "softbody/v1/interact.pb.h"

namespace softbody::server {

// A MESH tool names its surface among `tool_meshes` (the server's).
void answer_tool_command(Session& session, Tool& tool, const Caller& caller, CallerStreams& streams,
                         const ToolMeshes& tool_meshes, const v1::ToolCommand& command,
                         Clock::time_point received, Metrics& metrics, v1::ForceReply& reply);

}  // namespace softbody::server
