/**
 * Checks the options of `createDoubles()` / `new DoublesCore()` before anything is built: an
 * unknown key (at any level where options nest) or a value of the wrong type is a
 * {@link UsageError} naming the option, and for a key the nearest valid one. Plain JavaScript
 * callers get no type checker, and a typo (`sed`, `clok`) must never silently give a default.
 */
import { toEpochMs } from "../simulator/kernel/clock.js";
import { UsageError } from "../simulator/kernel/errors.js";
import { lazyRequire } from "../simulator/kernel/lazy-require.js";
import type { ServicePlugin } from "./plugin.js";

/** Edit distance for naming the option meant (fastest-levenshtein, loaded by the first unknown option). */
const levenshtein = lazyRequire<typeof import("fastest-levenshtein")>("fastest-levenshtein");

/** The top-level option keys, in the order the messages list them. */
export const OPTION_KEYS: readonly string[] = Object.freeze(["seed", "clock", "start", "baseUrls", "serverOnly", "scenario", "coverage", "journal", "uniqueOrigins", "passthrough", "state", "bundle", "mutant"]);
const CLOCK_NAMES: readonly string[] = ["manual", "fake-timers", "system", "advanceable"];

/**
 * The valid name closest to `name`, if one is close enough to be a likely typo (at most a third of
 * its letters differ, and at least one letter matches).
 * @example nearest("sed", ["seed", "clock"]) // "seed"
 */
export function nearest(name: string, valid: readonly string[]): string | undefined {
  let best: string | undefined;
  let bestDistance = Infinity;
  for (const candidate of valid) {
    const d = levenshtein().distance(name.toLowerCase(), candidate.toLowerCase());
    if (d < bestDistance) [best, bestDistance] = [candidate, d];
  }
  return best !== undefined && bestDistance <= Math.max(1, Math.ceil(best.length / 3)) ? best : undefined;
}

function describe(value: unknown): string {
  if (typeof value === "string") return JSON.stringify(value);
  if (typeof value === "function") return "a function";
  if (Array.isArray(value)) return "an array";
  if (value === null) return "null";
  if (typeof value === "object") return "an object";
  return String(value);
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value) && !(value instanceof Date);
}

function refuseUnknown(path: string, keys: readonly string[], valid: readonly string[]): void {
  for (const key of keys) {
    if (valid.includes(key)) continue;
    const name = path === "" ? key : `${path}.${key}`;
    const guess = nearest(key, valid);
    throw new UsageError(
      `createDoubles: unknown option "${name}"${guess === undefined ? "" : ` (did you mean "${guess}"?)`}; valid ${path === "" ? "options" : `keys of "${path}"`}: ${valid.join(", ")}`,
    );
  }
}

function checkUrl(path: string, value: unknown, what: string): void {
  let ok = false;
  if (typeof value === "string") {
    try {
      ok = /^https?:$/.test(new URL(value).protocol);
    } catch {
      ok = false;
    }
  }
  if (!ok) throw new UsageError(`createDoubles: option "${path}" must be ${what}, not ${describe(value)}`);
}

/**
 * Refuses unknown keys and wrong types in `options`.
 * @param plugins - the services, whose keys and base names `baseUrls` may use.
 * @throws {UsageError} e.g. `createDoubles: unknown option "sed" (did you mean "seed"?); valid options: seed, clock, start, baseUrls, serverOnly`,
 *   `createDoubles: option "seed" must be an integer or a string, not true`.
 * @example checkDoublesOptions({ sed: 1 }, plugins) // throws, naming "seed"
 */
export function checkDoublesOptions(options: unknown, plugins: readonly ServicePlugin<unknown>[]): void {
  if (options === undefined) return;
  if (!isPlainObject(options)) throw new UsageError(`createDoubles: options must be an object, not ${describe(options)}`);
  refuseUnknown("", Object.keys(options), OPTION_KEYS);
  const { seed, clock, start, baseUrls, serverOnly, journal } = options;
  if (seed !== undefined && typeof seed !== "string" && !(typeof seed === "number" && Number.isSafeInteger(seed))) {
    throw new UsageError(`createDoubles: option "seed" must be an integer or a string, not ${describe(seed)}`);
  }
  if (clock !== undefined) {
    const isClock = isPlainObjectLike(clock) && typeof (clock as { now?: unknown }).now === "function";
    if (!isClock && !(typeof clock === "string" && CLOCK_NAMES.includes(clock))) {
      const guess = typeof clock === "string" ? nearest(clock, CLOCK_NAMES) : undefined;
      throw new UsageError(
        `createDoubles: option "clock" must be "manual", "fake-timers", "system", "advanceable" or a clock object with now(), not ${describe(clock)}${guess === undefined ? "" : ` (did you mean "${guess}"?)`}`,
      );
    }
  }
  if (start !== undefined) {
    const shaped = start instanceof Date || typeof start === "number" || typeof start === "string";
    let valid = shaped;
    if (shaped) {
      try {
        toEpochMs(start);
      } catch {
        valid = false;
      }
    }
    if (!valid) {
      throw new UsageError(`createDoubles: option "start" must be a Date, milliseconds since the epoch or an ISO 8601 string, not ${describe(start)}`);
    }
  }
  if (baseUrls !== undefined) {
    if (!isPlainObject(baseUrls)) throw new UsageError(`createDoubles: option "baseUrls" must be an object of services' base URLs, not ${describe(baseUrls)}`);
    refuseUnknown("baseUrls", Object.keys(baseUrls), plugins.map((p) => p.key));
    for (const plugin of plugins) {
      const override = baseUrls[plugin.key];
      const path = `baseUrls.${plugin.key}`;
      if (override === undefined || typeof override === "string") {
        if (override !== undefined) checkUrl(path, override, "an absolute http(s) URL");
        continue;
      }
      if (!isPlainObject(override)) throw new UsageError(`createDoubles: option "${path}" must be a URL string or an object of URL strings, not ${describe(override)}`);
      refuseUnknown(path, Object.keys(override), Object.keys(plugin.defaultBases));
      for (const [name, url] of Object.entries(override)) checkUrl(`${path}.${name}`, url, "an absolute http(s) URL");
    }
  }
  const { scenario } = options;
  if (scenario !== undefined && typeof scenario !== "string" && !isPlainObject(scenario)) {
    throw new UsageError(`createDoubles: option "scenario" must be a scenario document (an object), its file's path or its JSON or YAML text, not ${describe(scenario)}`);
  }
  if (options.coverage !== undefined && typeof options.coverage !== "boolean") {
    throw new UsageError(`createDoubles: option "coverage" must be true or false, not ${describe(options.coverage)}`);
  }
  if (options.uniqueOrigins !== undefined && typeof options.uniqueOrigins !== "boolean") {
    throw new UsageError(`createDoubles: option "uniqueOrigins" must be true or false, not ${describe(options.uniqueOrigins)}`);
  }
  if (journal !== undefined) {
    if (!isPlainObject(journal)) throw new UsageError(`createDoubles: option "journal" must be an object like { limit: 1000, maxBodyBytes: 16384 }, not ${describe(journal)}`);
    refuseUnknown("journal", Object.keys(journal), ["limit", "maxBodyBytes"]);
    for (const [key, value] of Object.entries(journal)) {
      if (value !== undefined && !(typeof value === "number" && Number.isSafeInteger(value) && value >= 0)) {
        throw new UsageError(`createDoubles: option "journal.${key}" must be a whole number of 0 or more, not ${describe(value)}`);
      }
    }
  }
  const { state } = options as { state?: unknown };
  if (state !== undefined && typeof state !== "string" && !isPlainObject(state)) {
    throw new UsageError(`createDoubles: option "state" must be a state document's file path or the document (an object), not ${describe(state)}`);
  }
  const { passthrough } = options;
  if (passthrough !== undefined) {
    if (!isPlainObject(passthrough)) throw new UsageError(`createDoubles: option "passthrough" must be an object of real servers' URLs by service, like { secrets: "http://127.0.0.1:8200" }, not ${describe(passthrough)}`);
    refuseUnknown("passthrough", Object.keys(passthrough), plugins.map((p) => p.key));
    for (const [key, target] of Object.entries(passthrough)) {
      if (typeof target === "string") {
        checkUrl(`passthrough.${key}`, target, "an absolute http(s) URL");
        continue;
      }
      if (!isPlainObject(target)) throw new UsageError(`createDoubles: option "passthrough.${key}" must be a URL string or { url, timeoutMs }, not ${describe(target)}`);
      refuseUnknown(`passthrough.${key}`, Object.keys(target), ["url", "timeoutMs"]);
      checkUrl(`passthrough.${key}.url`, target.url, "an absolute http(s) URL");
    }
  }
  const { bundle } = options;
  if (bundle !== undefined && typeof bundle !== "boolean") {
    if (!isPlainObject(bundle)) throw new UsageError(`createDoubles: option "bundle" must be true, false or { limit: 10000 }, not ${describe(bundle)}`);
    refuseUnknown("bundle", Object.keys(bundle), ["limit"]);
    const { limit } = bundle;
    if (limit !== undefined && !(typeof limit === "number" && Number.isSafeInteger(limit) && limit >= 0)) {
      throw new UsageError(`createDoubles: option "bundle.limit" must be a whole number of 0 or more, not ${describe(limit)}`);
    }
  }
  if (serverOnly !== undefined && typeof serverOnly !== "function") {
    throw new UsageError(`createDoubles: option "serverOnly" must be a function, not ${describe(serverOnly)}`);
  }
}

function isPlainObjectLike(value: unknown): boolean {
  return typeof value === "object" && value !== null;
}
