/**
 * Timestamp formats the services answer with, always in UTC so the host's time zone never leaks
 * into a response.
 *
 * These run on every serialized resource, so they are built from `Date.prototype.toISOString`
 * (about 0.2 us) rather than date-fns `format` (several microseconds and most of a GET's time). The
 * output is byte-identical to date-fns `format` on a `UTCDate` with the patterns named below, for
 * every instant a `Date` can hold (test/simulator/kernel/time.test.ts checks that against date-fns).
 * Outside years 1-9999 `toISOString` writes expanded years (`+010000`), so those instants take the
 * slow path that writes the year as date-fns does.
 */

/** 0001-01-01T00:00:00.000Z and 9999-12-31T23:59:59.999Z: where toISOString writes 4-digit years. */
const FIRST_PLAIN = -62_135_596_800_000;
const LAST_PLAIN = 253_402_300_799_999;

/**
 * The last few thousand instants written, per format: responses repeat the same instants (every
 * run's timestamps, on every GET and list), so most calls are one Map lookup.
 */
function remembered(format: (ms: number) => string): (ms: number) => string {
  const cache = new Map<number, string>();
  return (ms) => {
    let text = cache.get(ms);
    if (text === undefined) {
      text = format(ms);
      if (cache.size >= 4096) cache.clear();
      cache.set(ms, text);
    }
    return text;
  };
}

/** `yyyy-MM-dd'T'HH:mm:ss.SSS` of the instant, as date-fns writes it. */
function utcParts(ms: number): string {
  if (ms >= FIRST_PLAIN && ms <= LAST_PLAIN) return new Date(ms).toISOString().slice(0, 23);
  const date = new Date(ms);
  if (Number.isNaN(date.getTime())) throw new RangeError("Invalid time value");
  // date-fns `yyyy` writes the year of the era: 1 BC (year 0) is 0001, 2 BC is 0002.
  const year = date.getUTCFullYear();
  const pad = (value: number, width = 2): string => String(value).padStart(width, "0");
  return (
    `${pad(year > 0 ? year : 1 - year, 4)}-${pad(date.getUTCMonth() + 1)}-${pad(date.getUTCDate())}` +
    `T${pad(date.getUTCHours())}:${pad(date.getUTCMinutes())}:${pad(date.getUTCSeconds())}.${pad(date.getUTCMilliseconds(), 3)}`
  );
}

/**
 * ISO 8601 with milliseconds and `Z`: `2021-05-24T07:38:04.171Z` (a run's `created-at`); date-fns
 * `yyyy-MM-dd'T'HH:mm:ss.SSS'Z'` in UTC.
 * @param ms - milliseconds since the Unix epoch.
 * @throws {RangeError} "Invalid time value" when `ms` is not a time a `Date` can hold.
 * @example isoMillis(Date.UTC(2021, 4, 24, 7, 38, 4, 171)) // "2021-05-24T07:38:04.171Z"
 */
export function isoMillis(ms: number): string {
  return isoMillisRemembered(ms);
}
const isoMillisRemembered = remembered((ms) => `${utcParts(ms)}Z`);

/**
 * ISO 8601 to the second with a numeric offset: `2021-05-24T07:38:04+00:00` (a run's
 * `status-timestamps` values); date-fns `yyyy-MM-dd'T'HH:mm:ss'+00:00'` in UTC.
 * @param ms - milliseconds since the Unix epoch.
 * @throws {RangeError} "Invalid time value" when `ms` is not a time a `Date` can hold.
 * @example isoSeconds(Date.UTC(2021, 4, 24, 7, 38, 4, 171)) // "2021-05-24T07:38:04+00:00"
 */
export function isoSeconds(ms: number): string {
  return isoSecondsRemembered(ms);
}
const isoSecondsRemembered = remembered((ms) => `${utcParts(ms).slice(0, -4)}+00:00`);

/**
 * RFC 3339 in UTC with `Z` and as many fractional digits as needed, Go's `time.Time` JSON form:
 * `2024-01-01T00:10:00Z`, `2024-01-01T00:10:00.5Z`.
 * @param ms - milliseconds since the Unix epoch.
 * @throws {RangeError} "Invalid time value" when `ms` is not a time a `Date` can hold.
 * @example rfc3339(Date.UTC(2024, 0, 1, 0, 10, 0, 500)) // "2024-01-01T00:10:00.5Z"
 */
export function rfc3339(ms: number): string {
  return rfc3339Remembered(ms);
}
const rfc3339Remembered = remembered((ms) => {
  const parts = utcParts(ms);
  const fraction = parts.slice(-3).replace(/0+$/, "");
  return fraction ? `${parts.slice(0, -3)}${fraction}Z` : `${parts.slice(0, -4)}Z`;
});

/**
 * Whole seconds since the Unix epoch (truncated toward zero, as date-fns `getUnixTime`).
 * @param ms - milliseconds since the Unix epoch.
 * @example unixSeconds(Date.UTC(2024, 0, 1, 0, 0, 0, 999)) // 1704067200
 */
export function unixSeconds(ms: number): number {
  return Math.trunc(ms / 1000);
}
