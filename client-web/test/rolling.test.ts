import { describe, expect, it } from "vitest";
import { RollingSeries } from "../src/stats/rolling";

describe("RollingSeries", () => {
  it("keeps the newest values, oldest first", () => {
    const s = new RollingSeries(3);
    for (let i = 1; i <= 5; ++i) s.push(i * 10, i);
    expect(s.length).toBe(3);
    expect([0, 1, 2].map((i) => s.at(i).value)).toEqual([3, 4, 5]);
    expect(s.max()).toBe(5);
  });

  it("reports medians and event rates", () => {
    const s = new RollingSeries(10);
    [5, 1, 4, 2].forEach((v, i) => s.push(i * 100, v));
    expect(s.median()).toBe(3);
    s.push(400, 3);
    expect(s.median()).toBe(3);
    expect(s.rate()).toBeCloseTo(10);  // 5 events over 400 ms
    expect(new RollingSeries(4).median()).toBeNaN();
  });
});
