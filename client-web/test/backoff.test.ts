import { describe, expect, it } from "vitest";
import { Backoff } from "../src/net/backoff";

describe("Backoff", () => {
  it("doubles from the initial delay up to the cap, then holds", () => {
    const b = new Backoff(100, 1000, () => 0.5);  // no jitter at 0.5
    expect([b.next(), b.next(), b.next(), b.next(), b.next(), b.next()]).toEqual([100, 200, 400, 800, 1000, 1000]);
  });

  it("jitters within +-20 %", () => {
    expect(new Backoff(1000, 8000, () => 0).next()).toBe(800);
    expect(new Backoff(1000, 8000, () => 0.999999).next()).toBe(1200);
  });

  it("starts over after reset", () => {
    const b = new Backoff(100, 1000, () => 0.5);
    b.next();
    b.next();
    expect(b.attempts).toBe(2);
    b.reset();
    expect(b.next()).toBe(100);
  });
});
