import { describe, expect, it } from "vitest";
import { colorByDisplacement, legendTicks, nextRange, viridis } from "../src/render/colormap";

describe("viridis", () => {
  it("runs from dark purple to yellow and clamps outside [0, 1]", () => {
    const lo = [0, 0, 0];
    const hi = [0, 0, 0];
    viridis(0, lo);
    viridis(1, hi);
    expect(lo[0]).toBeCloseTo(0.267, 3);
    expect(lo[2]).toBeCloseTo(0.329, 3);
    expect(hi[0]).toBeCloseTo(0.993, 3);
    const below = [0, 0, 0];
    viridis(-3, below);
    expect(below).toEqual(lo);
    const nan = [0, 0, 0];
    viridis(NaN, nan);
    expect(nan).toEqual(lo);
  });

  it("grows in brightness monotonically (a perceptual map must)", () => {
    let previous = -1;
    const c = [0, 0, 0];
    for (let t = 0; t <= 1.0001; t += 0.01) {
      viridis(t, c);
      const luminance = 0.2126 * c[0] + 0.7152 * c[1] + 0.0722 * c[2];
      expect(luminance).toBeGreaterThan(previous);
      previous = luminance;
    }
  });
});

describe("colorByDisplacement", () => {
  it("returns the largest displacement and colours by |x - rest| / max", () => {
    const rest = new Float32Array([0, 0, 0, 1, 0, 0]);
    const positions = new Float32Array([0, 0, 0, 1, 0.003, 0.004]);  // 0 and 5 mm
    const colors = new Float32Array(6);
    expect(colorByDisplacement(positions, rest, 0.005, colors)).toBeCloseTo(0.005, 6);
    const lo = [0, 0, 0];
    const hi = [0, 0, 0];
    viridis(0, lo);
    viridis(1, hi);
    expect(Array.from(colors.slice(0, 3))).toEqual(lo.map((v) => Math.fround(v)));
    expect(Array.from(colors.slice(3)).map((v) => Number(v.toFixed(5)))).toEqual(hi.map((v) => Number(Math.fround(v).toFixed(5))));
  });
});

describe("legend", () => {
  it("picks 1-2-5 steps covering the range", () => {
    expect(legendTicks(30, 4)).toEqual([0, 10, 20, 30]);
    expect(legendTicks(0.8, 4)).toEqual([0, 0.2, 0.4, 0.6, 0.8]);
    expect(legendTicks(7, 5)).toEqual([0, 2, 4, 6]);
    expect(legendTicks(0)).toEqual([0]);
    expect(legendTicks(Infinity)).toEqual([0]);
  });

  it("grows at once and shrinks slowly, never below the floor", () => {
    expect(nextRange(1, 3, 0.1)).toBe(3);
    const shrunk = nextRange(3, 1, 0.1);
    expect(shrunk).toBeLessThan(3);
    expect(shrunk).toBeGreaterThan(2.9);
    expect(nextRange(0.1, 0, 0.1)).toBe(0.1);
  });
});
