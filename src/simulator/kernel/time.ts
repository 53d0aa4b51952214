/**
 * Timestamp formats the services answer with, computed with date-fns on UTC dates so the host's
 * time zone never leaks into a response.
 */
import { UTCDate } from "@date-fns/utc";
import { format, getUnixTime } from "date-fns";

/**
 * ISO 8601 with milliseconds and `Z`: `2021-05-24T07:38:04.171Z` (a run's `created-at`).
 * @param ms - milliseconds since the Unix epoch.
 * @example isoMillis(Date.UTC(2021, 4, 24, 7, 38, 4, 171)) // "2021-05-24T07:38:04.171Z"
 */
export function isoMillis(ms: number): string {
  return format(new UTCDate(ms), "yyyy-MM-dd'T'HH:mm:ss.SSS'Z'");
}

/**
 * ISO 8601 to the second with a numeric offset: `2021-05-24T07:38:04+00:00` (a run's
 * `status-timestamps` values).
 * @param ms - milliseconds since the Unix epoch.
 * @example isoSeconds(Date.UTC(2021, 4, 24, 7, 38, 4, 171)) // "2021-05-24T07:38:04+00:00"
 */
export function isoSeconds(ms: number): string {
  return format(new UTCDate(ms), "yyyy-MM-dd'T'HH:mm:ss'+00:00'");
}

/**
 * RFC 3339 in UTC with `Z` and as many fractional digits as needed, Go's `time.Time` JSON form:
 * `2024-01-01T00:10:00Z`, `2024-01-01T00:10:00.5Z`.
 * @param ms - milliseconds since the Unix epoch.
 * @example rfc3339(Date.UTC(2024, 0, 1, 0, 10, 0, 500)) // "2024-01-01T00:10:00.5Z"
 */
export function rfc3339(ms: number): string {
  const base = format(new UTCDate(ms), "yyyy-MM-dd'T'HH:mm:ss");
  const fraction = format(new UTCDate(ms), "SSS").replace(/0+$/, "");
  return fraction ? `${base}.${fraction}Z` : `${base}Z`;
}

/**
 * Whole seconds since the Unix epoch.
 * @param ms - milliseconds since the Unix epoch.
 * @example unixSeconds(Date.UTC(2024, 0, 1, 0, 0, 0, 999)) // 1704067200
 */
export function unixSeconds(ms: number): number {
  return getUnixTime(new UTCDate(ms));
}
