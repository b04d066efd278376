#include "server/sessions/tool_commands.h"

#include "engine/sim/integrator_options.h"
#include "server/api/proto_convert.h"

namespace softbody::server {

void answer_tool_command(Session& session, Tool& tool, const Caller& caller, CallerStreams& streams,
                         const ToolMeshes& tool_meshes, const v1::ToolCommand& command,
                         Clock::time_point received, Metrics& metrics, v1::ForceReply& reply) {
  reply.Clear();
  reply.set_sequence(command.sequence());
  reply.set_client_time_s(command.client_time_s());
  reply.set_tool_id(tool.id());
  if (std::string over = streams.admit_tool_command(caller); !over.empty()) {
    // Over the caller's rate quota (counted by quota, not as an answered command): the pose is
    // not taken.
    reply.set_rejected(over);
    return;
  }
  ToolInput input;
  std::string problem =
      tool_input_from_proto(command, session.mesh().num_vertices(), tool_meshes, input);
  if (problem.empty() && input.mode == ToolMode::kPoke) {
    const bool solvable = session.steps_constraint_contact();
    resolve_contact_model(input, solvable);
    if (input.contact.model == ContactModel::kConstraint && !solvable)
      problem =
          "contact_model: constraint contact needs a step that solves it: the session's "
          "solver must be auto or direct (it keeps a factor) and its integrator one of " +
          contact_stage_integrator_names();
  }
  if (!problem.empty()) {
    // Rejected: zero force, the tool keeps its previous pose; the stream goes on (a glitching
    // device must not lose its connection).
    reply.set_rejected(problem);
    reply.mutable_force();
    metrics.tool_commands_rejected.fetch_add(1, std::memory_order_relaxed);
  } else {
    codec::CouplingModel model;
    codec::ToolContactModel contact_problem;
    int contacts = 0;
    const codec::Vec3d force = session.answer(tool, input, contacts, model, &contact_problem);
    to_proto(force, *reply.mutable_force());
    to_proto(model, *reply.mutable_model());
    if (!contact_problem.empty())
      to_proto(contact_problem, command.contact_problem_encoding(),
               *reply.mutable_contact_problem());
    reply.set_contacts(contacts);
    if (input.mode == ToolMode::kPoke)
      reply.set_contact_model(input.contact.model == ContactModel::kConstraint
                                  ? v1::CONTACT_MODEL_CONSTRAINT
                                  : v1::CONTACT_MODEL_PENALTY);
  }
  metrics.tool_commands.fetch_add(1, std::memory_order_relaxed);
  const double seconds = std::chrono::duration<double>(Clock::now() - received).count();
  reply.set_server_time_us(seconds * 1e6);
  metrics.haptic_reply_seconds.observe(seconds);
}

}  // namespace softbody::server
