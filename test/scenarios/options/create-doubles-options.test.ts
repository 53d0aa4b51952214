/**
 * `createDoubles()` refuses what it would otherwise ignore or misread (issue 7, item 6): unknown
 * option keys, at every level where options nest (naming the nearest valid key), and values of
 * the wrong type. A typo must never silently give a default.
 */
import { describe, expect, it } from "vitest";
import { createDoubles } from "../../../src/scenarios/doubles.js";
import { ManualClock } from "../../../src/simulator/kernel/clock.js";
import { UsageError } from "../../../src/simulator/kernel/errors.js";

/** Calls createDoubles with anything (as plain JavaScript callers can) and returns the refusal message. */
function refusal(options: unknown): string {
  try {
    createDoubles(options as Parameters<typeof createDoubles>[0]).close();
  } catch (error) {
    expect(error).toBeInstanceOf(UsageError);
    return (error as Error).message;
  }
  throw new Error(`accepted ${JSON.stringify(options)}`);
}

describe("createDoubles() options", () => {
  it("refuses an unknown key, naming the nearest valid one", () => {
    // Regression (issue 7): { sed: 1 } and { clok: "manual" } were accepted and ignored.
    expect(refusal({ sed: 1 })).toMatch(/unknown option "sed" \(did you mean "seed"\?\)/);
    expect(refusal({ clok: "manual" })).toMatch(/unknown option "clok" \(did you mean "clock"\?\)/);
    expect(refusal({ baseUrl: {} })).toMatch(/did you mean "baseUrls"\?/);
    expect(refusal({ seed: 1, verbose: true })).toMatch(/unknown option "verbose"; valid options: seed, clock, start, baseUrls, serverOnly/);
  });

  it("refuses unknown keys inside baseUrls: service names and base names", () => {
    expect(refusal({ baseUrls: { secret: "https://s.test/v1" } })).toMatch(/unknown option "baseUrls\.secret" \(did you mean "secrets"\?\)/);
    expect(refusal({ baseUrls: { runs: { apii: "https://r.test/api/v2" } } })).toMatch(/unknown option "baseUrls\.runs\.apii" \(did you mean "api"\?\)/);
  });

  it("refuses values of the wrong type", () => {
    expect(refusal({ seed: true })).toMatch(/option "seed" must be an integer or a string, not true/);
    expect(refusal({ seed: 1.5 })).toMatch(/option "seed" must be an integer or a string, not 1\.5/);
    expect(refusal({ seed: Number.NaN })).toMatch(/option "seed" must be an integer or a string/);
    expect(refusal({ clock: "manul" })).toMatch(/option "clock" .*"manul".*did you mean "manual"\?/);
    expect(refusal({ clock: 5 })).toMatch(/option "clock" must be "manual", "fake-timers", "system", "advanceable" or a clock object with now\(\)/);
    expect(refusal({ start: "yesterday" })).toMatch(/option "start" must be a Date, milliseconds since the epoch or an ISO 8601 string/);
    expect(refusal({ start: {} })).toMatch(/option "start"/);
    expect(refusal({ baseUrls: "https://x.test" })).toMatch(/option "baseUrls" must be an object/);
    expect(refusal({ baseUrls: { runs: 7 } })).toMatch(/option "baseUrls\.runs" must be a URL string or an object of URL strings/);
    expect(refusal({ baseUrls: { runs: { api: 7 } } })).toMatch(/option "baseUrls\.runs\.api" must be an absolute http\(s\) URL/);
    expect(refusal({ baseUrls: { runs: "not a url" } })).toMatch(/option "baseUrls\.runs" must be an absolute http\(s\) URL/);
    expect(refusal({ serverOnly: [] })).toMatch(/option "serverOnly" must be a function/);
    expect(refusal(null)).toMatch(/options must be an object/);
  });

  it("accepts every documented shape", () => {
    const shapes = [
      undefined,
      {},
      { seed: 42 },
      { seed: "any text" },
      { clock: "manual", start: "2024-05-01T00:00:00Z" },
      { clock: "manual", start: new Date(0) },
      { clock: "manual", start: 0 },
      { clock: "fake-timers" },
      { clock: "system" },
      { clock: "advanceable" },
      { clock: new ManualClock() },
      { baseUrls: { runs: "https://r.test/api/v2", secrets: { api: "https://s.test/v1" } } },
      { baseUrls: { runs: { api: "https://r.test/api/v2", archive: "https://archive.r.test" } } },
      { seed: 1, clock: "manual", start: "2024-01-01T00:00:00Z", baseUrls: {}, serverOnly: () => [] },
    ];
    for (const options of shapes) createDoubles(options as Parameters<typeof createDoubles>[0]).close();
  });
});
