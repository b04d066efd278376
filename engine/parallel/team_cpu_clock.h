// CPU time of the calling thread and of the OpenMP team its parallel loops run on: what one
// simulation step costs the host, whatever else the host runs (wall-clock time would also count
// the time other tenants took).
#pragma once

namespace softbody {

// Seconds of CPU the calling thread and the threads of its OpenMP team (num_threads() of them)
// have used. The difference of two readings around a step is the step's CPU cost. libgomp keeps
// one team per calling thread and reuses its threads while the thread count stays the same, so
// the difference counts the same threads; a team that changes size in between is undercounted.
double team_cpu_seconds();

}  // namespace softbody
