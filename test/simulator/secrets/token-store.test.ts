import { describe, expect, it } from "vitest";
import { calculateTtl, sanitizePolicies } from "../../../src/simulator/secrets/token-store.js";

const H = 3_600_000;

describe("token store rules", () => {
  it("sanitizes policy names as the real service does", () => {
    expect(sanitizePolicies([" Web", "db", "web", ""], true)).toEqual(["db", "default", "web"]);
    expect(sanitizePolicies(["web", "root"], true)).toEqual(["root"]);
    expect(sanitizePolicies([], false)).toEqual([]);
    expect(sanitizePolicies([], true)).toEqual(["default"]);
  });

  it("calculates TTLs: default 768h, increment over TTL, capped by explicit max and 768h from issue", () => {
    const start = Date.UTC(2026, 0, 1);
    expect(calculateTtl({ incrementMs: 0, backendTtlMs: 0, periodMs: 0, explicitMaxTtlMs: 0, startMs: start, now: start })).toEqual({ ttlMs: 768 * H, warnings: [] });
    expect(calculateTtl({ incrementMs: 2 * H, backendTtlMs: H, periodMs: 0, explicitMaxTtlMs: 0, startMs: start, now: start }).ttlMs).toBe(2 * H);
    expect(calculateTtl({ incrementMs: 0, backendTtlMs: 5 * H, periodMs: 0, explicitMaxTtlMs: 2 * H, startMs: start, now: start + H })).toEqual({
      ttlMs: H,
      warnings: ['TTL of "5h" exceeded the effective max_ttl of "1h"; TTL value is capped accordingly'],
    });
    expect(calculateTtl({ incrementMs: 0, backendTtlMs: 0, periodMs: 1000 * H, explicitMaxTtlMs: 0, startMs: start, now: start })).toEqual({
      ttlMs: 768 * H,
      warnings: ['period of "1000h" exceeded the effective max_ttl of "768h"; period value is capped accordingly'],
    });
    // Whole seconds: the clock's milliseconds are truncated, as the real service truncates times.
    expect(calculateTtl({ incrementMs: 0, backendTtlMs: 90_500, periodMs: 0, explicitMaxTtlMs: 0, startMs: start + 999, now: start + 999 }).ttlMs).toBe(90_000);
  });
});
