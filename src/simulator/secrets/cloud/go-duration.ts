/**
 * Durations exactly as the real (Go) service reads them, with its own error strings:
 * - {@link goParseDuration}: Go's `time.ParseDuration` (units `ns us µs ms s m h`, hour the largest;
 *   a bare number other than `0` is "missing unit"), used by `config/lease`: the kernel's parser;
 * - {@link parseDurationSeconds}: the service's "duration in seconds" fields (`ttl`,
 *   `default_sts_ttl`, `max_sts_ttl`, `rotation_period`): an integer number of seconds, an integer
 *   string, `<n>d` days, or a Go duration string; fractions of a second are dropped.
 */
import { GoDurationError, MAX_GO_DURATION_NS, parseGoDurationStrict } from "../../kernel/go-duration.js";
import { goQuote } from "./go-format.js";

export { GoDurationError };

/**
 * Go's `time.ParseDuration` (the kernel's {@link parseGoDurationStrict}; no `d` unit).
 * @returns milliseconds (fractional below a millisecond).
 * @throws {GoDurationError} `time: invalid duration "x"`, `time: missing unit in duration "10"`,
 *   `time: unknown unit "d" in duration "1d"`.
 * @example goParseDuration("1h30m") // 5_400_000
 */
export function goParseDuration(input: string): number {
  return parseGoDurationStrict(input);
}

/**
 * Reads a "duration in seconds" request value the way the real service does.
 * @param input - a JSON number (seconds), a string (`"3600"`, `"7d"`, `"1h"`), or null/undefined (0).
 * @returns whole seconds (truncated toward zero).
 * @throws {GoDurationError} with Go's message for strings that are not durations
 *   (`strconv.ParseInt: parsing "99999999999999999999": value out of range` for integers beyond
 *   int64), `time: invalid duration "<input>"` for values beyond Go's longest duration (about
 *   292 years; the real service silently wraps those), or `could not parse duration from input`
 *   for other JSON types.
 * @example parseDurationSeconds("1h") // 3600
 */
export function parseDurationSeconds(input: unknown): number {
  if (input === null || input === undefined) return 0;
  const inRange = (seconds: number): number => {
    // Go keeps durations in int64 nanoseconds; the real service silently wraps beyond that.
    if (Math.abs(seconds) > MAX_DURATION_SECONDS) throw new GoDurationError(`time: invalid duration ${goQuote(String(input))}`);
    return seconds;
  };
  if (typeof input === "number") {
    if (!Number.isFinite(input)) throw new GoDurationError("could not parse duration from input");
    return inRange(Math.trunc(input));
  }
  if (typeof input !== "string") throw new GoDurationError("could not parse duration from input");
  if (input === "") return 0;
  if (/^[+-]?\d+$/.test(input)) return inRange(Number(goParseInt64(input)));
  if (input.endsWith("d")) {
    const days = input.slice(0, -1);
    if (!/^[+-]?\d+$/.test(days)) throw new GoDurationError(`strconv.ParseInt: parsing ${goQuote(days)}: invalid syntax`);
    return inRange(Number(goParseInt64(days)) * 86_400);
  }
  return Math.trunc(goParseDuration(input) / 1000);
}

/** The longest Go duration in whole seconds (2^63 - 1 ns). */
export const MAX_DURATION_SECONDS = Number(MAX_GO_DURATION_NS / 1_000_000_000n);

/**
 * Go's `strconv.ParseInt(text, 10, 64)` for a decimal integer text (sign allowed).
 * @throws {GoDurationError} `strconv.ParseInt: parsing "99999999999999999999": value out of range`.
 * @example goParseInt64("-42") // -42n
 */
export function goParseInt64(text: string): bigint {
  const value = BigInt(text.startsWith("+") ? text.slice(1) : text);
  // MAX_GO_DURATION_NS is also int64's largest value.
  if (value > MAX_GO_DURATION_NS || value < -MAX_GO_DURATION_NS - 1n) throw new GoDurationError(`strconv.ParseInt: parsing ${goQuote(text)}: value out of range`);
  return value;
}

