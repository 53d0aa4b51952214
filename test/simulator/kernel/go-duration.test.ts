import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { GoDurationError, MAX_GO_DURATION_NS, parseGoDurationStrict } from "../../../src/simulator/kernel/go-duration.js";
import { parseDuration } from "../../../src/simulator/kernel/duration.js";
import { goParseDuration } from "../../../src/simulator/secrets/cloud/go-duration.js";
import { parseGoDuration } from "../../../src/interceptors/access-control/go-json.js";

describe("parseGoDurationStrict (Go's time.ParseDuration)", () => {
  it("computes in whole nanoseconds, as Go does", () => {
    expect(parseGoDurationStrict("1.0000001s")).toBe(1000.0001);
    expect(parseGoDurationStrict("59us")).toBe(0.059);
    expect(parseGoDurationStrict("1.5ns")).toBe(0.000001);
    expect(parseGoDurationStrict("-0s")).toBe(-0);
    expect(parseGoDurationStrict("+0")).toBe(0);
    expect(parseGoDurationStrict("2562047h47m16.854775807s")).toBe(9_223_372_036_854.775);
  });

  it("answers with Go's exact messages", () => {
    expect(() => parseGoDurationStrict("10")).toThrow(new GoDurationError('time: missing unit in duration "10"'));
    expect(() => parseGoDurationStrict("1d")).toThrow('time: unknown unit "d" in duration "1d"');
    expect(() => parseGoDurationStrict("1h\n")).toThrow('time: unknown unit "h\\n" in duration "1h\\n"');
    expect(() => parseGoDurationStrict("")).toThrow('time: invalid duration ""');
    expect(() => parseGoDurationStrict("-")).toThrow('time: invalid duration "-"');
    expect(() => parseGoDurationStrict("9223372036854775808ns")).toThrow('time: invalid duration "9223372036854775808ns"');
  });

  it("accepts the day unit only when asked", () => {
    expect(parseGoDurationStrict("1.5d", { allowDays: true })).toBe(129_600_000);
    expect(() => parseGoDurationStrict("106752d", { allowDays: true })).toThrow('time: invalid duration "106752d"');
  });

  it("is the one parser behind the kernel, secrets and access-control entry points", () => {
    const token = fc.tuple(fc.nat(100_000), fc.option(fc.nat(999_999)), fc.constantFrom("ns", "us", "µs", "ms", "s", "m", "h"));
    fc.assert(
      fc.property(fc.constantFrom("", "-", "+"), fc.array(token, { minLength: 1, maxLength: 4 }), (sign, tokens) => {
        const text = sign + tokens.map(([whole, fraction, unit]) => `${whole}${fraction === null ? "" : `.${fraction}`}${unit}`).join("");
        const ms = parseGoDurationStrict(text);
        expect(BigInt(Math.round(Math.abs(ms) * 1e6)) <= MAX_GO_DURATION_NS).toBe(true);
        expect(goParseDuration(text)).toBe(ms);
        expect(parseGoDuration(text)).toBe(ms);
        expect(parseDuration(text)).toBe(ms);
      }),
    );
  });
});
