// The kernel's timestamp formatters against date-fns (the library they replace on the hot path):
// byte-identical output for every instant a Date can hold.
import { UTCDate } from "@date-fns/utc";
import { format } from "date-fns/format";
import { getUnixTime } from "date-fns/getUnixTime";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { isoMillis, isoSeconds, rfc3339, unixSeconds } from "../../../src/simulator/kernel/time.js";

const MAX = 8.64e15;

function oracle(ms: number) {
  const date = new UTCDate(ms);
  const fraction = format(date, "SSS").replace(/0+$/, "");
  const base = format(date, "yyyy-MM-dd'T'HH:mm:ss");
  return {
    isoMillis: format(date, "yyyy-MM-dd'T'HH:mm:ss.SSS'Z'"),
    isoSeconds: format(date, "yyyy-MM-dd'T'HH:mm:ss'+00:00'"),
    rfc3339: fraction ? `${base}.${fraction}Z` : `${base}Z`,
    unixSeconds: getUnixTime(date),
  };
}

const ours = (ms: number) => ({ isoMillis: isoMillis(ms), isoSeconds: isoSeconds(ms), rfc3339: rfc3339(ms), unixSeconds: unixSeconds(ms) });

describe("timestamp formatters", () => {
  it("write what date-fns format writes, at the edges of 4-digit years and of Date", () => {
    const edges = [0, -1, 1, 999, 1000, -62_135_596_800_000, -62_135_596_800_001, 253_402_300_799_999, 253_402_300_800_000, MAX, -MAX, Date.UTC(2024, 1, 29, 23, 59, 59, 990)];
    for (const ms of edges) expect(ours(ms), String(ms)).toEqual(oracle(ms));
  });

  it("write what date-fns format writes for any instant", () => {
    fc.assert(
      fc.property(fc.oneof(fc.integer({ min: -MAX, max: MAX }), fc.integer({ min: 0, max: 4_102_444_800_000 })), (ms) => {
        expect(ours(ms)).toEqual(oracle(ms));
      }),
      { numRuns: 2000 },
    );
  });

  it("refuse an instant a Date cannot hold, as date-fns does", () => {
    for (const ms of [NaN, MAX + 1, Infinity]) {
      expect(() => isoMillis(ms)).toThrow(RangeError);
      expect(() => format(new UTCDate(ms), "yyyy")).toThrow(RangeError);
    }
  });
});
