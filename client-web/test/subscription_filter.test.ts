import { describe, expect, it } from "vitest";
import { SubscriptionFilter } from "../src/net/subscription_filter";

describe("SubscriptionFilter", () => {
  it("drops the left stream's late frames until the new stream's first", () => {
    const filter = new SubscriptionFilter();
    filter.switched(100);
    expect(filter.accepts({ sequence: 0n, numVertices: 100 })).toBe(true);
    expect(filter.accepts({ sequence: 1n, numVertices: 100 })).toBe(true);
    filter.switched(100);  // another session of the same body
    expect(filter.accepts({ sequence: 2n, numVertices: 100 })).toBe(false);  // late, old stream
    expect(filter.accepts({ sequence: 3n, numVertices: 100 })).toBe(false);
    expect(filter.accepts({ sequence: 0n, numVertices: 100 })).toBe(true);  // the new stream
    expect(filter.accepts({ sequence: 1n, numVertices: 100 })).toBe(true);
    expect(filter.staleFrames).toBe(2);
  });

  it("drops frames of another body's size, even a first one", () => {
    const filter = new SubscriptionFilter();
    filter.switched(50);
    expect(filter.accepts({ sequence: 0, numVertices: 80 })).toBe(false);
    expect(filter.accepts({ sequence: 0, numVertices: 50 })).toBe(true);
    expect(filter.accepts({ sequence: 1, numVertices: 80 })).toBe(false);
  });

  it("takes nothing before any subscription", () => {
    expect(new SubscriptionFilter().accepts({ sequence: 0, numVertices: 0 })).toBe(false);
  });
});
