// ToolCommand.candidate_reach for a constraint poke (issue 22): how far beyond the scene's contact
// margin the server takes surface features as candidates of the tool's contact problem, which
// this page re-solves for the cursor's newest position until the next reply. Without them a
// sphere moved into the body between replies meets nothing there. The rule is softbody-client's
// (client-cpp/haptics/haptic_loop.cpp): a problem is used from its arrival, a round trip after
// the command, until a newer one replaces it, so the tool may travel its speed times twice the
// link's delay meanwhile; the recent peak speed (decaying over 1 s), 1.5x for acceleration, and
// at least ONSET_SPEED: a resting tool has no recent speed, yet the problem built for its resting
// pose still serves a round trip after it starts to move (on a 300 ms lossy link a pen that
// hovered, then pressed, sank millimetres into a surface its problem did not hold).
export const ONSET_SPEED = 0.05;  // [m/s]

export class CandidateReach {
  private peakSpeed = 0;  // [m/s]

  // The tool moved at `speed` [m/s] over the last `dtS` seconds.
  update(speed: number, dtS: number): void {
    const decay = Number.isFinite(dtS) && dtS > 0 ? Math.exp(-dtS / 1.0) : 1;
    this.peakSpeed = Math.max(Number.isFinite(speed) ? speed : 0, this.peakSpeed * decay);
  }

  // The reach to send [m] for a link whose replies take up to `linkDelayS`, within the server's
  // accepted [0, 0.1].
  reach(linkDelayS: number): number {
    if (!Number.isFinite(linkDelayS) || linkDelayS <= 0) return 0;
    return Math.min(0.1, 3 * Math.max(this.peakSpeed, ONSET_SPEED) * linkDelayS);
  }
}
