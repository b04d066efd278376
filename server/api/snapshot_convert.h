// Snapshots as API messages: a session's state, settings and solver state (SnapshotSession,
// CreateSession from a snapshot, the snapshot store used for draining and migration).
#pragma once

#include "server/sessions/session.h"
#include "softbody/v1/session.pb.h"

namespace softbody::server {

void to_proto(const SessionSnapshot& snapshot, v1::Snapshot& out);

// The state part of a snapshot (positions, velocities, time, step, tolerance, solver state) for a
// scene of `num_vertices` vertices; throws ApiError naming the field at fault ("snapshot.…").
// scene_name, document and upload are read by the session manager when it builds the scene.
SessionSnapshot snapshot_state_from_proto(const v1::Snapshot& snapshot, size_t num_vertices);

}  // namespace softbody::server
