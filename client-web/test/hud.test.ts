import { describe, expect, it } from "vitest";
import { Hud, type StepSample } from "../src/ui/hud";

const sample = (step: number): StepSample => ({
  step, stepMs: 1, iterations: 1, residual: 0, realTimeFactor: 1, invertedElements: 0, frameBytes: 0, dropped: 0,
});

describe("Hud", () => {
  it("measures steps per second and starts over when the steps count down", () => {
    const hud = new Hud({} as HTMLElement, {} as HTMLCanvasElement);  // frame() draws nothing
    for (let i = 0; i <= 10; ++i) hud.frame(1000 + 20 * i, sample(500 + i));  // 50 steps/s
    expect(hud.simulationRate).toBeCloseTo(50);
    // Another session (or a reset) starts at step 0: not -24,000 steps/s across the switch.
    hud.frame(1220, sample(0));
    expect(hud.simulationRate).toBe(0);
    for (let i = 1; i <= 5; ++i) hud.frame(1220 + 10 * i, sample(i));  // 100 steps/s
    expect(hud.simulationRate).toBeCloseTo(100);
  });
});
