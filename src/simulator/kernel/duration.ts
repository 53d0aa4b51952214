/**
 * Duration strings shared by every service: `"90s"`, `"1h30m"`, `"500ms"`, `"2d"`.
 *
 * Parsing follows Go's `time.ParseDuration` (the services are written in Go and clients send Go
 * durations), plus a `d` (day) unit for test convenience. Formatting produces Go's canonical form
 * (`1h0m0s`), which the secrets service answers with.
 */
import { DomainError } from "./errors.js";

/** A duration: milliseconds as a number, or a duration string such as `"90s"` or `"1h30m"`. */
export type Duration = number | string;

const UNIT_MS: Readonly<Record<string, number>> = Object.freeze({
  ns: 1e-6,
  us: 1e-3,
  "µs": 1e-3, // U+00B5 MICRO SIGN
  "μs": 1e-3, // U+03BC GREEK SMALL LETTER MU (Go accepts both)
  ms: 1,
  s: 1000,
  m: 60_000,
  h: 3_600_000,
  d: 86_400_000,
});

const TOKEN = /^(\d+(?:\.\d*)?|\.\d+)(ns|us|µs|μs|ms|s|m|h|d)/;

/** Go's longest duration (2^63 - 1 ns), in ms: longer strings are refused as Go refuses them. */
export const MAX_GO_DURATION_MS = 9_223_372_036_854.775;

/**
 * Parses a duration string (Go syntax, optionally signed, units ns/us/ms/s/m/h and `d`) into
 * milliseconds. A bare number string (`"86400"`) is read as seconds, as the services do.
 *
 * @param input - the duration string, or milliseconds as a number (returned unchanged).
 * @param options.largestUnit - refuse units larger than this one (`"h"` for the secrets service).
 * @returns milliseconds (may be fractional for sub-millisecond units).
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
  let rest = text;
  let sign = 1;
  if (rest.startsWith("-") || rest.startsWith("+")) {
    sign = rest.startsWith("-") ? -1 : 1;
    rest = rest.slice(1);
  }
  if (rest === "0") return 0;
  if (rest === "") throw invalidDuration(input);
  let total = 0;
  while (rest.length > 0) {
    const match = TOKEN.exec(rest);
    if (!match) throw invalidDuration(input);
    const [whole, amount, unit] = match as unknown as [string, string, string];
    if (unit === "d" && options.largestUnit === "h") throw invalidDuration(input);
    total += Number(amount) * (UNIT_MS[unit] ?? Number.NaN);
    rest = rest.slice(whole.length);
  }
  if (!Number.isFinite(total) || total > MAX_GO_DURATION_MS) throw invalidDuration(input);
  return sign * total;
}

/**
 * Formats milliseconds as Go's canonical duration string: `1h0m0s`, `1m30s`, `45s`, `0s`,
 * `1.5s`, `250ms`.
 *
 * @param ms - milliseconds (negative values get a leading `-`).
 * @example formatGoDuration(3_600_000) // "1h0m0s"
 */
export function formatGoDuration(ms: number): string {
  if (ms === 0) return "0s";
  const sign = ms < 0 ? "-" : "";
  let rest = Math.abs(ms);
  if (rest < 1000) return `${sign}${trimNumber(rest)}ms`;
  const hours = Math.floor(rest / 3_600_000);
  rest -= hours * 3_600_000;
  const minutes = Math.floor(rest / 60_000);
  rest -= minutes * 60_000;
  const seconds = `${trimNumber(rest / 1000)}s`;
  if (hours > 0) return `${sign}${hours}h${minutes}m${seconds}`;
  if (minutes > 0) return `${sign}${minutes}m${seconds}`;
  return `${sign}${seconds}`;
}

function trimNumber(value: number): string {
  return String(Number(value.toFixed(9)));
}

function invalidDuration(input: string): DomainError {
  return new DomainError({
    code: "invalid",
    service: "simulator",
    operation: "parse duration",
    message: `time: invalid duration "${input}"`,
  });
}
