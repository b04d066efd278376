import { describe, expect, it } from "vitest";
import { CandidateReach, ONSET_SPEED } from "../src/tools/candidate_reach";

describe("CandidateReach", () => {
  it("covers the distance the tool may travel in two link delays at its recent peak speed", () => {
    const r = new CandidateReach();
    // Still: what a resting hand may cover once it starts, before a newer problem comes.
    expect(r.reach(0.2)).toBeCloseTo(3 * ONSET_SPEED * 0.2, 12);
    r.update(0.08, 1 / 60);
    expect(r.reach(0.2)).toBeCloseTo(3 * 0.08 * 0.2, 12);
    // Stopping keeps the peak a while (a hand at the surface may go on), then lets it go.
    r.update(0, 0.2);
    expect(r.reach(0.2)).toBeCloseTo(3 * 0.08 * Math.exp(-0.2) * 0.2, 12);
    for (let i = 0; i < 600; ++i) r.update(0, 1 / 60);
    expect(r.reach(0.2)).toBeCloseTo(3 * ONSET_SPEED * 0.2, 12);
  });

  it("stays within what the server accepts and ignores unknown delays", () => {
    const r = new CandidateReach();
    r.update(10, 1 / 60);
    expect(r.reach(1)).toBe(0.1);
    expect(r.reach(NaN)).toBe(0);
    r.update(NaN, 1 / 60);
    expect(r.reach(0.1)).toBeGreaterThan(0);
  });
});
