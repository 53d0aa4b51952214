/**
 * Go's reference-time layouts (`2006-01-02T15:04:05Z07:00`), for the username template function
 * `timestamp`. Times are formatted in UTC (the simulated server's zone).
 */

const MONTHS = ["January", "February", "March", "April", "May", "June", "July", "August", "September", "October", "November", "December"];
const DAYS = ["Sunday", "Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday"];

/** Layout elements, longest first so that `January` wins over `Jan` and `2006` over `2`. */
const ELEMENTS: readonly [string, (d: Date) => string][] = [
  ["January", (d) => MONTHS[d.getUTCMonth()] ?? ""],
  ["Monday", (d) => DAYS[d.getUTCDay()] ?? ""],
  ["Z07:00:00", () => "Z"],
  ["-07:00:00", () => "+00:00:00"],
  ["Z07:00", () => "Z"],
  ["-07:00", () => "+00:00"],
  ["Z0700", () => "Z"],
  ["-0700", () => "+0000"],
  ["2006", (d) => String(d.getUTCFullYear()).padStart(4, "0")],
  ["Z07", () => "Z"],
  ["-07", () => "+00"],
  ["Jan", (d) => (MONTHS[d.getUTCMonth()] ?? "").slice(0, 3)],
  ["Mon", (d) => (DAYS[d.getUTCDay()] ?? "").slice(0, 3)],
  ["MST", () => "UTC"],
  ["002", (d) => String(dayOfYear(d)).padStart(3, "0")],
  ["__2", (d) => String(dayOfYear(d)).padStart(3, " ")],
  ["_2", (d) => String(d.getUTCDate()).padStart(2, " ")],
  ["01", (d) => String(d.getUTCMonth() + 1).padStart(2, "0")],
  ["02", (d) => String(d.getUTCDate()).padStart(2, "0")],
  ["03", (d) => String(hour12(d)).padStart(2, "0")],
  ["04", (d) => String(d.getUTCMinutes()).padStart(2, "0")],
  ["05", (d) => String(d.getUTCSeconds()).padStart(2, "0")],
  ["06", (d) => String(d.getUTCFullYear() % 100).padStart(2, "0")],
  ["15", (d) => String(d.getUTCHours()).padStart(2, "0")],
  ["PM", (d) => (d.getUTCHours() >= 12 ? "PM" : "AM")],
  ["pm", (d) => (d.getUTCHours() >= 12 ? "pm" : "am")],
  ["1", (d) => String(d.getUTCMonth() + 1)],
  ["2", (d) => String(d.getUTCDate())],
  ["3", (d) => String(hour12(d))],
  ["4", (d) => String(d.getUTCMinutes())],
  ["5", (d) => String(d.getUTCSeconds())],
];

function hour12(d: Date): number {
  const h = d.getUTCHours() % 12;
  return h === 0 ? 12 : h;
}

function dayOfYear(d: Date): number {
  return Math.floor((d.getTime() - Date.UTC(d.getUTCFullYear(), 0, 1)) / 86_400_000) + 1;
}

/**
 * Formats `ms` with a Go layout. Fractional seconds `.000`/`.999` (any number of digits, `,` also
 * accepted as separator) are supported.
 * @param ms - milliseconds since the epoch.
 * @example formatGoTime(0, "2006-01-02T15:04:05Z07:00") // "1970-01-01T00:00:00Z"
 */
export function formatGoTime(ms: number, layout: string): string {
  const date = new Date(ms);
  let out = "";
  let i = 0;
  while (i < layout.length) {
    const fraction = /^[.,](0+|9+)(?!\d)/.exec(layout.slice(i));
    if (fraction) {
      const digits = fraction[1] ?? "";
      const nanos = String(date.getUTCMilliseconds() * 1_000_000).padStart(9, "0").slice(0, digits.length);
      const text = digits.startsWith("9") ? nanos.replace(/0+$/, "") : nanos;
      out += text === "" ? "" : (fraction[0][0] ?? ".") + text;
      i += fraction[0].length;
      continue;
    }
    const element = ELEMENTS.find(([token]) => layout.startsWith(token, i));
    if (element) {
      out += element[1](date);
      i += element[0].length;
      continue;
    }
    out += layout[i];
    i++;
  }
  return out;
}
