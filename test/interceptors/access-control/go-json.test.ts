import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { blockingParameters } from "../../../src/interceptors/access-control/blocking.js";
import { GoObject, decodeFailure, parseGoDuration, parseRfc3339 } from "../../../src/interceptors/access-control/go-json.js";
import { isDomainError } from "../../../src/simulator/kernel/errors.js";

const fail = decodeFailure("test", "Token decoding failed");

describe("access-control: Go-style decoding", () => {
  it("parses RFC 3339 like Go's time.Time, refusing impossible dates", () => {
    expect(parseRfc3339("2024-01-01T00:10:00Z")).toBe(Date.UTC(2024, 0, 1, 0, 10));
    expect(parseRfc3339("2024-01-01T02:10:00+02:00")).toBe(Date.UTC(2024, 0, 1, 0, 10));
    expect(parseRfc3339("2024-01-01T00:10:00.123456789Z")).toBe(Date.UTC(2024, 0, 1, 0, 10) + 123);
    expect(parseRfc3339("2024-02-30T00:00:00Z")).toBeUndefined();
    expect(parseRfc3339("2024-01-01 00:00:00Z")).toBeUndefined();
    expect(parseRfc3339("2024-01-01T00:00:00")).toBeUndefined();
  });

  it("parses Go durations and nothing else", () => {
    expect(parseGoDuration("60s")).toBe(60_000);
    expect(parseGoDuration("1h30m")).toBe(5_400_000);
    expect(parseGoDuration("1.5m")).toBe(90_000);
    expect(parseGoDuration("-5m")).toBe(-300_000);
    expect(parseGoDuration("0")).toBe(0);
    expect(parseGoDuration("300ms")).toBe(300);
    for (const bad of ["10", "1d", "m", "", "1h 30m", "five"]) expect(parseGoDuration(bad)).toBeUndefined();
  });

  it("looks fields up exactly first, then case-insensitively; null is absent", () => {
    const body = GoObject.parse('{"description": "a", "Description": "b", "LOCAL": true, "Policies": null}', "ACLToken", fail);
    expect(body.string("Description")).toBe("b");
    expect(body.bool("Local")).toBe(true);
    expect(body.objects("Policies", "X", (o) => o)).toBeUndefined();
  });

  it("never throws anything but the service's own 400 for any body", () => {
    fc.assert(
      fc.property(fc.oneof(fc.string(), fc.json(), fc.jsonValue().map((v) => JSON.stringify({ Policies: v, Local: v, ExpirationTime: v }))), (text) => {
        try {
          const body = GoObject.parse(text, "ACLToken", fail);
          body.string("Description");
          body.bool("Local");
          body.objects("Policies", "ACLTokenPolicyLink", (o) => o.string("Name"));
          body.time("ExpirationTime");
          body.strings("Datacenters");
          body.stringMap("Meta");
        } catch (error) {
          expect(isDomainError(error) && error.code === "malformed").toBe(true);
        }
      }),
      { numRuns: 300 },
    );
  });

  it("reads blocking parameters: default wait 5m, cap 10m", () => {
    expect(blockingParameters(new URLSearchParams(""))).toEqual({ index: 0, waitMs: 300_000 });
    expect(blockingParameters(new URLSearchParams("index=7&wait=30s"))).toEqual({ index: 7, waitMs: 30_000 });
    expect(blockingParameters(new URLSearchParams("index=7&wait=2h"))).toEqual({ index: 7, waitMs: 600_000 });
    expect(() => blockingParameters(new URLSearchParams("index=1.5"))).toThrow("Invalid index");
  });
});
