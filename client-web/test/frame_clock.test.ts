import { describe, expect, it } from "vitest";
import { FrameClock } from "../src/codec/frame_clock";

describe("FrameClock", () => {
  it("interpolates over the frame interval and holds after it", () => {
    const clock = new FrameClock(40, 1);  // smoothing 1: the last interval
    clock.arrived(0);
    clock.arrived(40);
    expect(clock.alpha(40)).toBe(0);
    expect(clock.alpha(60)).toBeCloseTo(0.5);
    expect(clock.alpha(500)).toBe(1);
  });

  it("learns the arrival rate and ignores pauses", () => {
    const clock = new FrameClock(16, 0.2);
    for (let t = 0; t <= 3000; t += 33) clock.arrived(t);
    expect(clock.interval).toBeCloseTo(33, 0);
    clock.arrived(3000 + 5000);  // a pause of 5 s is not a frame interval
    expect(clock.interval).toBeCloseTo(33, 0);
  });

  it("shows the newest frame before any interval is known", () => {
    expect(new FrameClock().alpha(123)).toBe(1);
  });
});
