import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { formatGoDuration as goDurationString } from "../../../../src/simulator/kernel/go-duration.js";
import { GoDurationError, MAX_DURATION_SECONDS, goParseDuration, goParseInt64, parseDurationSeconds } from "../../../../src/simulator/secrets/cloud/go-duration.js";
import { DEFAULT_STS_TTL_SECONDS, SYSTEM_MAX_LEASE_TTL_SECONDS, iamUserLeaseMs, stsTtlSeconds } from "../../../../src/simulator/secrets/cloud/ttl.js";

describe("STS credential TTLs", () => {
  it("takes the request's ttl, else default_sts_ttl, else 3600 s, capped by max_sts_ttl, else the system maximum", () => {
    fc.assert(
      fc.property(
        fc.option(fc.integer({ min: 0, max: 4_000_000 }), { nil: undefined }),
        fc.integer({ min: 0, max: 200_000 }),
        fc.integer({ min: 0, max: 200_000 }),
        (requested, defaultStsTtl, maxStsTtl) => {
          const ttl = stsTtlSeconds(requested, { defaultStsTtl, maxStsTtl });
          const wanted = requested ?? (defaultStsTtl > 0 ? defaultStsTtl : DEFAULT_STS_TTL_SECONDS);
          const cap = maxStsTtl > 0 ? maxStsTtl : SYSTEM_MAX_LEASE_TTL_SECONDS;
          expect(ttl).toBe(Math.min(wanted, cap));
        },
      ),
    );
  });

  it("defaults to 3600 s", () => {
    expect(stsTtlSeconds(undefined, { defaultStsTtl: 0, maxStsTtl: 0 })).toBe(3600);
    expect(stsTtlSeconds(undefined, { defaultStsTtl: 0, maxStsTtl: 1800 })).toBe(1800);
  });
});

describe("IAM user leases", () => {
  it("use config/lease's lease capped by lease_max, else the system's 768h", () => {
    expect(iamUserLeaseMs(null)).toBe(768 * 3_600_000);
    expect(iamUserLeaseMs({ leaseMs: 3_600_000, leaseMaxMs: 7_200_000 })).toBe(3_600_000);
    expect(iamUserLeaseMs({ leaseMs: 7_200_000, leaseMaxMs: 3_600_000 })).toBe(3_600_000);
    expect(iamUserLeaseMs({ leaseMs: 0, leaseMaxMs: 3_600_000 })).toBe(3_600_000);
    fc.assert(
      fc.property(fc.nat(), fc.nat(), (leaseMs, leaseMaxMs) => {
        const ttl = iamUserLeaseMs({ leaseMs, leaseMaxMs });
        expect(ttl).toBeLessThanOrEqual(leaseMaxMs > 0 ? leaseMaxMs : 768 * 3_600_000);
        if (leaseMs > 0 && (leaseMaxMs === 0 || leaseMs <= leaseMaxMs)) expect(ttl).toBe(leaseMs);
      }),
    );
  });
});

describe("Go durations", () => {
  it("parse like time.ParseDuration, with its error messages", () => {
    expect(goParseDuration("1h30m")).toBe(5_400_000);
    expect(goParseDuration("1.5s")).toBe(1500);
    expect(goParseDuration("-2m")).toBe(-120_000);
    expect(goParseDuration("0")).toBe(0);
    expect(goParseDuration("300µs")).toBe(0.3);
    expect(() => goParseDuration("10")).toThrow(new GoDurationError('time: missing unit in duration "10"'));
    expect(() => goParseDuration("1d")).toThrow('time: unknown unit "d" in duration "1d"');
    expect(() => goParseDuration("")).toThrow('time: invalid duration ""');
    expect(() => goParseDuration(".s")).toThrow('time: invalid duration ".s"');
    expect(() => goParseDuration("9999999999h")).toThrow('time: invalid duration "9999999999h"');
  });

  it("format like Duration.String and round-trip", () => {
    expect(goDurationString(3_600_000)).toBe("1h0m0s");
    expect(goDurationString(5_400_500)).toBe("1h30m0.5s");
    expect(goDurationString(1500)).toBe("1.5s");
    expect(goDurationString(0.0015)).toBe("1.5µs");
    expect(goDurationString(-90_000)).toBe("-1m30s");
    fc.assert(fc.property(fc.integer({ min: -1e12, max: 1e12 }), (ms) => goParseDuration(goDurationString(ms)) === ms));
  });

  it("read seconds fields from numbers, integer strings, days and duration strings", () => {
    expect(parseDurationSeconds(90)).toBe(90);
    expect(parseDurationSeconds(90.9)).toBe(90);
    expect(parseDurationSeconds("90")).toBe(90);
    expect(parseDurationSeconds("2d")).toBe(172_800);
    expect(parseDurationSeconds("1h1s")).toBe(3601);
    expect(parseDurationSeconds("1500ms")).toBe(1);
    expect(parseDurationSeconds("")).toBe(0);
    expect(() => parseDurationSeconds("1.5d")).toThrow('strconv.ParseInt: parsing "1.5": invalid syntax');
    expect(() => parseDurationSeconds(true)).toThrow("could not parse duration from input");
  });

  it("keep seconds fields within Go's duration range, whatever the spelling", () => {
    expect(MAX_DURATION_SECONDS).toBe(9_223_372_036);
    expect(parseDurationSeconds("+90")).toBe(90);
    expect(() => parseDurationSeconds("99999999999999999999")).toThrow('strconv.ParseInt: parsing "99999999999999999999": value out of range');
    expect(() => parseDurationSeconds("-99999999999999999999d")).toThrow('strconv.ParseInt: parsing "-99999999999999999999": value out of range');
    expect(goParseInt64("9223372036854775807")).toBe(2n ** 63n - 1n);
    expect(goParseInt64("-9223372036854775808")).toBe(-(2n ** 63n));
    expect(() => goParseInt64("9223372036854775808")).toThrow("value out of range");
    fc.assert(
      fc.property(fc.oneof(fc.double({ noNaN: true, noDefaultInfinity: true }), fc.bigInt({ min: -(10n ** 25n), max: 10n ** 25n }).map(String), fc.bigInt({ min: -(10n ** 15n), max: 10n ** 15n }).map((n) => `${n}d`)), (input) => {
        let seconds: number;
        try {
          seconds = parseDurationSeconds(input);
        } catch (error) {
          expect(error).toBeInstanceOf(GoDurationError);
          return;
        }
        expect(Number.isInteger(seconds)).toBe(true);
        expect(Math.abs(seconds)).toBeLessThanOrEqual(MAX_DURATION_SECONDS);
      }),
    );
  });
});
