/**
 * Duration strings shared by every service: `"90s"`, `"1h30m"`, `"500ms"`, `"2d"`.
 *
 * Parsing is Go's `time.ParseDuration` ({@link parseGoDurationStrict}, the services are written in
 * Go and clients send Go durations), made lenient for test code: a `d` (day) unit, a bare number
 * string read as seconds, and surrounding whitespace ignored. Formatting produces Go's canonical
 * form (`1h0m0s`), which the secrets service answers with.
 */
import { DomainError } from "./errors.js";
import { GoDurationError, MAX_GO_DURATION_MS, parseGoDurationStrict } from "./go-duration.js";

export { MAX_GO_DURATION_MS, MAX_GO_DURATION_TEXT, formatGoDuration } from "./go-duration.js";

/** A duration: milliseconds as a number, or a duration string such as `"90s"` or `"1h30m"`. */
export type Duration = number | string;

/**
 * Parses a duration string (Go syntax, optionally signed, units ns/us/ms/s/m/h and `d`) into
 * milliseconds. A bare number string (`"86400"`) is read as seconds, as the services do.
 *
 * @param input - the duration string, or milliseconds as a number (returned unchanged).
 * @param options.largestUnit - refuse units larger than this one (`"h"` for the secrets service).
 * @returns milliseconds (may be fractional for sub-millisecond units; exact to the nanosecond).
 * @throws {DomainError} `invalid` (message `time: invalid duration "<input>"`, Go's) when the
 *   string is not a duration, or is longer than Go's longest duration (2^63 - 1 ns, about 292
 *   years: {@link MAX_GO_DURATION_MS}).
 * @example parseDuration("1h30m") // 5_400_000
 * @example parseDuration("1.5h") // 5_400_000; parseDuration("90s") // 90_000; parseDuration("") // throws
 */
export function parseDuration(input: Duration, options: { largestUnit?: "h" | "d" } = {}): number {
  if (typeof input === "number") {
    if (!Number.isFinite(input)) throw invalidDuration(String(input));
    return input;
  }
  const text = input.trim();
  if (text === "") throw invalidDuration(input);
  if (/^[+-]?\d+$/.test(text)) {
    const ms = Number(text) * 1000;
    if (Math.abs(ms) > MAX_GO_DURATION_MS) throw invalidDuration(input);
    return ms;
  }
  try {
    return parseGoDurationStrict(text, { allowDays: options.largestUnit !== "h" });
  } catch (error) {
    if (error instanceof GoDurationError) throw invalidDuration(input);
    throw error;
  }
}

function invalidDuration(input: string): DomainError {
  return new DomainError({
    code: "invalid",
    service: "simulator",
    operation: "parse duration",
    message: `time: invalid duration "${input}"`,
  });
}
