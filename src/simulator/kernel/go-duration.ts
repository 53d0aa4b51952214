/**
 * Go's duration syntax, the ONE implementation every service builds on: {@link parseGoDurationStrict}
 * is Go's `time.ParseDuration` with Go's exact error messages (the services are written in Go and
 * clients send Go durations), and {@link formatGoDuration} writes the canonical `1h0m0s` form.
 *
 * The lenient parser for test code (`d` unit, bare numbers as seconds) is `parseDuration` in
 * `duration.ts`; the secrets cloud engine's seconds fields and access control's `ExpirationTTL` and
 * blocking-query `wait` are thin wrappers over {@link parseGoDurationStrict}.
 */
import { goQuote } from "./go-quote.js";

/**
 * A duration Go would refuse; `message` is Go's own, e.g. `time: invalid duration "x"`,
 * `time: missing unit in duration "10"`, `time: unknown unit "d" in duration "1d"`.
 * @example new GoDurationError('time: missing unit in duration "10"')
 */
export class GoDurationError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "GoDurationError";
  }
}

/** Go's longest duration (and int64's largest value): 2^63 - 1 ns. */
export const MAX_GO_DURATION_NS = 2n ** 63n - 1n;

/** Go's longest duration (2^63 - 1 ns), in ms: longer strings are refused as Go refuses them. */
export const MAX_GO_DURATION_MS = 9_223_372_036_854.775;

/** {@link MAX_GO_DURATION_MS} as Go prints it (`time.Duration(math.MaxInt64).String()`), for messages. */
export const MAX_GO_DURATION_TEXT = "2562047h47m16.854775807s";

const UNIT_NS: Readonly<Record<string, bigint>> = Object.freeze({
  ns: 1n,
  us: 1_000n,
  "\u00b5s": 1_000n, // MICRO SIGN
  "\u03bcs": 1_000n, // GREEK SMALL LETTER MU (Go accepts both)
  ms: 1_000_000n,
  s: 1_000_000_000n,
  m: 60_000_000_000n,
  h: 3_600_000_000_000n,
});

const DAY_NS = 86_400_000_000_000n;

/** Options of {@link parseGoDurationStrict}. */
export interface GoDurationOptions {
  /**
   * Also accept a `d` (24 h) unit. Not Go: an extension for test code's `parseDuration`; the
   * services refuse `d` (`time: unknown unit "d" in duration "1d"`).
   */
  readonly allowDays?: boolean;
}

/**
 * Go's `time.ParseDuration`: an optionally signed sequence of decimal numbers, each with an
 * optional fraction and a unit (`ns`, `us`, `µs`, `μs`, `ms`, `s`, `m`, `h`), e.g. `"300ms"`,
 * `"-1.5h"`, `"2h45m"`; `"0"` alone needs no unit. Computed exactly in integer nanoseconds, so
 * fractions below a nanosecond are dropped, as Go drops them. No whitespace is allowed.
 *
 * @param text - the duration string.
 * @param options - {@link GoDurationOptions} (`allowDays` for the non-Go `d` unit).
 * @returns milliseconds (fractional below a millisecond, e.g. `0.3` for `"300µs"`).
 * @throws {GoDurationError} with Go's exact message: `time: invalid duration "x"` (bad syntax, or
 *   longer than 2^63 - 1 ns, about 292 years), `time: missing unit in duration "10"`,
 *   `time: unknown unit "d" in duration "1d"` (the text is quoted as Go's `strconv.Quote` does).
 * @example parseGoDurationStrict("1h30m") // 5_400_000
 * @example parseGoDurationStrict("10") // throws GoDurationError('time: missing unit in duration "10"')
 */
export function parseGoDurationStrict(text: string, options: GoDurationOptions = {}): number {
  const invalid = (): GoDurationError => new GoDurationError(`time: invalid duration ${goQuote(text)}`);
  let rest = text;
  let negative = false;
  if (rest.startsWith("-") || rest.startsWith("+")) {
    negative = rest.startsWith("-");
    rest = rest.slice(1);
  }
  if (rest === "0") return 0;
  if (rest === "") throw invalid();
  let totalNs = 0n;
  while (rest !== "") {
    if (!/^[0-9.]/.test(rest)) throw invalid();
    const number = /^(\d*)(?:\.(\d*))?/.exec(rest);
    const whole = number?.[1] ?? "";
    const fraction = number?.[2];
    if (whole === "" && (fraction === undefined || fraction === "")) throw invalid();
    rest = rest.slice(number?.[0].length ?? 0);
    const unitMatch = /^[^0-9.]+/.exec(rest);
    if (unitMatch === null) throw new GoDurationError(`time: missing unit in duration ${goQuote(text)}`);
    const unit = unitMatch[0];
    rest = rest.slice(unit.length);
    const scale = UNIT_NS[unit] ?? (unit === "d" && options.allowDays === true ? DAY_NS : undefined);
    if (scale === undefined) throw new GoDurationError(`time: unknown unit ${goQuote(unit)} in duration ${goQuote(text)}`);
    totalNs += BigInt(whole || "0") * scale;
    if (fraction) totalNs += (BigInt(fraction) * scale) / 10n ** BigInt(fraction.length);
    if (totalNs > MAX_GO_DURATION_NS) throw invalid();
  }
  // Whole milliseconds exactly, plus the nanoseconds below them.
  const ms = Number(totalNs / 1_000_000n) + Number(totalNs % 1_000_000n) / 1e6;
  return negative ? -ms : ms;
}

/**
 * Formats milliseconds exactly as Go's `time.Duration.String()`: `1h0m0s`, `1m30s`, `45s`, `0s`,
 * `1.5s`, `250ms`, below a millisecond `500µs` / `1.5µs` / `750ns` (U+00B5 micro sign, as Go).
 *
 * @param ms - milliseconds (negative values get a leading `-`; fractions down to nanoseconds are kept).
 * @returns the duration string.
 * @example formatGoDuration(3_600_000) // "1h0m0s"
 * @example formatGoDuration(0.5) // "500µs"
 */
export function formatGoDuration(ms: number): string {
  if (ms === 0) return "0s";
  const sign = ms < 0 ? "-" : "";
  const abs = Math.abs(ms);
  // Whole milliseconds and the nanoseconds below them, kept apart so large values stay exact.
  let whole = Math.floor(abs);
  let subNs = Math.round((abs - whole) * 1e6);
  if (subNs >= 1e6) {
    whole += 1;
    subNs -= 1e6;
  }
  const fraction = (value: number, digits: number): string => (value === 0 ? "" : `.${String(value).padStart(digits, "0").replace(/0+$/, "")}`);
  if (whole === 0) {
    if (subNs < 1e3) return `${sign}${subNs}ns`;
    return `${sign}${Math.floor(subNs / 1e3)}${fraction(subNs % 1e3, 3)}\u00b5s`;
  }
  if (whole < 1000) return `${sign}${whole}${fraction(subNs, 6)}ms`;
  const hours = Math.floor(whole / 3_600_000);
  let rest = whole - hours * 3_600_000;
  const minutes = Math.floor(rest / 60_000);
  rest -= minutes * 60_000;
  const secondsWhole = Math.floor(rest / 1000);
  const seconds = `${secondsWhole}${fraction((rest - secondsWhole * 1000) * 1e6 + subNs, 9)}s`;
  if (hours > 0) return `${sign}${hours}h${minutes}m${seconds}`;
  if (minutes > 0) return `${sign}${minutes}m${seconds}`;
  return `${sign}${seconds}`;
}
