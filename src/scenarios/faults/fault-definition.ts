/**
 * What a test author writes to make calls fail: a {@link FaultDefinition} (which requests, what
 * happens to them, when and how often), and its checking into the form the fault set applies.
 * Every mistake is a `TypeError` naming the field and what would be accepted.
 */
import type { ConnectionFault, FaultAnswer } from "../../interceptors/faults.js";
import { CONNECTION_FAULTS } from "../../interceptors/faults.js";
import type { HttpService } from "../../interceptors/http.js";
import { nearestInCatalog } from "../../interceptors/router.js";
import { operationNamesOf, ROUTE_FORM, SERVICE_KEYS, unknownName, type MountedRoute, type OperationName, type RouteName, type ServiceKey, type UserRouteName } from "../../interceptors/vocabulary.js";
import { clockDurationMs, MAX_EPOCH_MS, toEpochMs } from "../../simulator/kernel/clock.js";
import { MAX_GO_DURATION_MS, MAX_GO_DURATION_TEXT, type Duration } from "../../simulator/kernel/duration.js";

/** A point of the window of simulated time a fault is active in. */
export type FaultTime = Duration | Date;

/**
 * One fault: which requests it matches, what it does to them, and when.
 *
 * Match (all given must hold): `service` (required), and `route` or `operation` (neither: every
 * request to the service).
 *
 * Effect (at least one): `answer` (one of the service's own error answers), `connection` (the
 * connection fails), `latency` (the answer comes later); `commit: true` lets the request change
 * state first, then fails it with `answer` or `connection`.
 *
 * When (all given must hold; none: every matching request): `from`/`until` (a window of simulated
 * time), `after` (skip the first N matching requests), `times` (apply at most N times),
 * `probability` (each remaining request, drawn from the doubles' seed).
 *
 * @example
 * { service: "runs", route: "POST /runs/:run_id/actions/apply", answer: "rate-limited", retryAfter: "2s", times: 1 }
 * @example
 * { service: "secrets", answer: "sealed", until: "30s" }
 * @example
 * { service: "accessControl", operation: "create token", connection: "reset", commit: true }
 */
export interface FaultDefinition {
  /** The service's key in the doubles: `runs`, `accessControl` or `secrets`. */
  readonly service: ServiceKey;
  /**
   * The route as the specs write it, the same name the journal and its matchers use: `METHOD
   * /template`, method upper case, no API prefix, e.g. `POST /runs/:run_id/actions/apply`,
   * `GET /acl/token/:AccessorID`, `POST /ssh/creds/:name`, `GET /sys/health`. Secrets routes carry
   * the spec's methods (`POST` also matches a `PUT` write, `LIST` a `GET ?list=true`); an engine
   * mounted at another path: {@link mountedRoute} (`POST /ssh-prod/creds/:name`, the mount must
   * exist when the fault is added). Another name is refused with the nearest valid one.
   */
  readonly route?: RouteName | MountedRoute | UserRouteName;
  /** The route's operation in the spec's words (`apply run`, `create token`); runs and access control. */
  readonly operation?: OperationName;
  /**
   * One of the service's own error answers: runs `rate-limited` (429), `internal-error` (500),
   * `bad-gateway` (502), `unavailable` (503); secrets `sealed` (503), `standby` (429, sys/health),
   * `performance-standby` (473, sys/health), `index-not-replicated` (412), `internal-error`
   * (500), `rate-limited` (429); access control `no-cluster-leader` (500), `acl-not-found` (403),
   * `rate-limited` (429).
   */
  readonly answer?: string;
  /** For `rate-limited` answers: the wait the answer announces (ms, or `"2s"`; default 1 s). */
  readonly retryAfter?: Duration;
  /** The connection fails: `reset`, `hang-up`, or `no-response` (until the client gives up). */
  readonly connection?: ConnectionFault;
  /**
   * The answer comes this much later (ms, or `"1.5s"`): a manual clock is advanced by it, a
   * real-time clock (`system`, `fake-timers`, `advanceable`) really waits (a `setTimeout`, so fake
   * timers control it). Alone, the request is then answered normally.
   */
  readonly latency?: Duration;
  /** Commit then fail: the request is handled and its state change kept; the client sees `answer` or `connection`. */
  readonly commit?: boolean;
  /** Apply at most this many times (a whole number from 1). */
  readonly times?: number;
  /** Let this many matching requests through first (a whole number from 0). */
  readonly after?: number;
  /** Apply to each remaining matching request with this probability (0 to 1), drawn from the doubles' seed. */
  readonly probability?: number;
  /**
   * Active from this simulated time: a duration after the fault is added (ms, `"30s"`), or a
   * time (a `Date` or an ISO 8601 string).
   */
  readonly from?: FaultTime;
  /** Active until this simulated time (excluded): as {@link FaultDefinition.from}. */
  readonly until?: FaultTime;
  /** The fault's id in lists and journal entries (default `fault-1`, `fault-2`, ...). */
  readonly id?: string;
}

/** A service faults can target, as the fault set sees it. */
export interface FaultTarget {
  /** Key in the doubles (`runs`). */
  readonly key: string;
  readonly http: HttpService;
  /** Path prefixes of the service's bases, by base name, on every transport (`{ api: ["/api/v2"] }`). */
  readonly basePaths: Readonly<Record<string, readonly string[]>>;
  /** The service's route names now (`vocabulary.ts`; the secrets service's include its mounts). */
  readonly routeNames: () => readonly string[];
}

/** A checked fault definition. */
export interface CheckedFault {
  readonly id: string;
  readonly definition: FaultDefinition;
  readonly target: FaultTarget;
  readonly serviceName: string;
  /** The route's name (`METHOD /template`), compared with the name of each request's route. */
  readonly route?: string;
  readonly answer?: FaultAnswer;
  readonly retryAfterMs?: number;
  readonly latencyMs?: number;
  readonly from: number;
  readonly until: number;
}

const KEYS: readonly (keyof FaultDefinition)[] = [
  "service",
  "route",
  "operation",
  "answer",
  "retryAfter",
  "connection",
  "latency",
  "commit",
  "times",
  "after",
  "probability",
  "from",
  "until",
  "id",
];

/** A refused definition: a `TypeError` whose `field` (when one field is at fault) names it. */
export type FaultDefinitionError = TypeError & { readonly field?: string };

function fail(message: string, field?: string): never {
  throw Object.assign(new TypeError(`infra-doubles: faults.add: ${message}`), field === undefined ? {} : { field });
}

/**
 * Checks a definition against the services it may target.
 * @param now - simulated time when the fault is added (durations of `from`/`until` count from it).
 * @throws {TypeError} naming the field and what is accepted.
 */
export function checkFault(input: unknown, targets: readonly FaultTarget[], now: number, id: string): CheckedFault {
  if (typeof input !== "object" || input === null || Array.isArray(input)) fail(`a fault is an object like {"service": "runs", "answer": "rate-limited"}; got ${describe(input)}`);
  const definition = input as Record<string, unknown>;
  for (const key of Object.keys(definition)) {
    if (!(KEYS as readonly string[]).includes(key)) {
      const near = nearestInCatalog(KEYS, "", key, 1)[0];
      fail(`unknown field "${key}"${near === undefined ? "" : ` (did you mean "${near}"?)`}; fields: ${KEYS.join(", ")}`, key);
    }
  }
  const keys = targets.map((t) => t.key);
  const service = definition.service;
  if (typeof service !== "string") fail(`"service" is required: one of ${keys.map((k) => `"${k}"`).join(", ")}`, "service");
  const target = targets.find((t) => t.key === service);
  if (target === undefined) fail(`${unknownName("service", service, keys.length > 0 ? keys : SERVICE_KEYS)}; services: ${keys.join(", ")}`, "service");

  const route = optionalString(definition, "route");
  const operation = optionalString(definition, "operation");
  if (route !== undefined && operation !== undefined) fail(`give "route" or "operation", not both`);
  if (route !== undefined) checkRoute(route, target);
  if (operation !== undefined) checkOperation(operation, target);
  const method = route?.slice(0, route.indexOf(" "));
  const pattern = route?.slice(route.indexOf(" ") + 1);

  const answerName = optionalString(definition, "answer");
  const answers = target.http.faultAnswers ?? {};
  let answer: FaultAnswer | undefined;
  if (answerName !== undefined) {
    answer = answers[answerName];
    if (answer === undefined) fail(`the ${service} service has no answer "${answerName}" (answers: ${Object.keys(answers).join(", ")})`, "answer");
    if (answer.where !== undefined && pattern !== undefined && !matchesWhere(answer, method ?? "GET", pattern)) {
      fail(`the ${service} service gives "${answerName}" only on ${answer.where}, not on ${route}`, "answer");
    }
  }
  const connection = definition.connection;
  if (connection !== undefined && !(CONNECTION_FAULTS as readonly unknown[]).includes(connection)) {
    fail(`"connection" must be one of ${CONNECTION_FAULTS.map((c) => `"${c}"`).join(", ")}; got ${describe(connection)}`, "connection");
  }
  if (answer !== undefined && connection !== undefined) fail(`give "answer" or "connection", not both (an answer needs a connection)`);
  const latencyMs = optionalDuration(definition, "latency");
  const retryAfterMs = optionalDuration(definition, "retryAfter");
  if (retryAfterMs !== undefined && answerName !== "rate-limited") fail(`"retryAfter" goes with answer "rate-limited"`, "retryAfter");
  const commit = definition.commit;
  if (commit !== undefined && typeof commit !== "boolean") fail(`"commit" must be true or false; got ${describe(commit)}`, "commit");
  if (commit === true && answer === undefined && connection === undefined) fail(`"commit": true needs an "answer" or a "connection" to fail with after the commit`);
  if (answer === undefined && connection === undefined && latencyMs === undefined) {
    fail(`say what the fault does: "answer" (${Object.keys(answers).join(", ")}), "connection" (${CONNECTION_FAULTS.join(", ")}) or "latency"`);
  }
  const times = definition.times;
  if (times !== undefined && !(Number.isInteger(times) && (times as number) >= 1)) fail(`"times" must be a whole number from 1; got ${describe(times)}`, "times");
  const after = definition.after;
  if (after !== undefined && !(Number.isInteger(after) && (after as number) >= 0)) fail(`"after" must be a whole number from 0; got ${describe(after)}`, "after");
  const probability = definition.probability;
  if (probability !== undefined && !(typeof probability === "number" && probability >= 0 && probability <= 1)) {
    fail(`"probability" must be a number from 0 to 1; got ${describe(probability)}`, "probability");
  }
  const from = definition.from === undefined ? Number.NEGATIVE_INFINITY : timeOf(definition.from, "from", now);
  const until = definition.until === undefined ? Number.POSITIVE_INFINITY : timeOf(definition.until, "until", now);
  if (!(from < until)) fail(`"until" must come after "from"`, "until");
  const givenId = optionalString(definition, "id");
  if (givenId !== undefined && givenId.trim() === "") fail(`"id" must not be empty`, "id");
  return {
    id: givenId ?? id,
    definition: definition as unknown as FaultDefinition,
    target,
    serviceName: target.http.name,
    ...(route === undefined ? {} : { route }),
    ...(answer === undefined ? {} : { answer }),
    ...(retryAfterMs === undefined ? {} : { retryAfterMs }),
    ...(latencyMs === undefined ? {} : { latencyMs }),
    from,
    until,
  };
}

/** Whether a `METHOD /pattern` route can meet an answer given only somewhere (`sys/health`). */
function matchesWhere(answer: FaultAnswer, method: string, pattern: string): boolean {
  const probe = pattern.replace(/\/[:*][^/]+/g, "/x");
  return answer.appliesTo?.({ method, url: new URL(`http://x${probe}`), headers: {}, body: new Uint8Array() }) ?? true;
}

/** Refuses a route that is not one of the service's names now, naming the nearest one. */
function checkRoute(route: string, target: FaultTarget): void {
  const names = target.routeNames();
  if (names.includes(route)) return;
  const prefixes = [...new Set(Object.values(target.basePaths).flat())].filter((p) => p !== "").sort((a, b) => b.length - a.length);
  fail(`the ${target.key} service has ${unknownName("route", route, names, prefixes)}; ${ROUTE_FORM}`, "route");
}

function checkOperation(operation: string, target: FaultTarget): void {
  const operations = operationNamesOf(target.http);
  if (operations.length === 0) fail(`the ${target.key} service's routes name no operations: match its requests by "route"`, "operation");
  if (!operations.includes(operation)) fail(`the ${target.key} service has ${unknownName("operation", operation, operations)}; operations: ${operations.join(", ")}`, "operation");
}

function optionalString(definition: Record<string, unknown>, key: "route" | "operation" | "answer" | "id"): string | undefined {
  const value = definition[key];
  if (value === undefined) return undefined;
  if (typeof value !== "string") fail(`"${key}" must be a string; got ${describe(value)}`, key);
  return value;
}

/**
 * A wait (`latency`, `retryAfter`): at most Go's longest duration ({@link MAX_GO_DURATION_MS},
 * about 292 years), the longest a service can announce and a clock can be advanced by in one go.
 */
function optionalDuration(definition: Record<string, unknown>, key: "latency" | "retryAfter"): number | undefined {
  const value = definition[key];
  if (value === undefined) return undefined;
  if (typeof value !== "number" && typeof value !== "string") fail(`"${key}" must be ms or a duration string like "1.5s"; got ${describe(value)}`, key);
  let ms: number;
  try {
    ms = clockDurationMs(value);
  } catch {
    return fail(`"${key}" must be ms or a duration string like "1.5s" (not negative); got ${describe(value)}`, key);
  }
  if (ms > MAX_GO_DURATION_MS) fail(`"${key}" must be at most ${MAX_GO_DURATION_TEXT} (the longest Go duration); got ${describe(value)}`, key);
  return ms;
}

/**
 * A window bound: a duration after `now`, or a time; either way a time a `Date` can hold (up to
 * {@link MAX_EPOCH_MS}, +275760-09-13), so the window can be listed and compared.
 */
function timeOf(value: unknown, key: "from" | "until", now: number): number {
  if (value instanceof Date) {
    if (Number.isNaN(value.getTime())) fail(`"${key}" is an invalid Date`, key);
    return value.getTime();
  }
  if (typeof value === "number" || typeof value === "string") {
    let ms: number | undefined;
    try {
      ms = now + clockDurationMs(value);
    } catch {
      // not a duration: a time?
    }
    if (ms !== undefined) {
      if (ms > MAX_EPOCH_MS) {
        fail(`"${key}" must end by the latest time a Date can hold (+275760-09-13T00:00:00.000Z); got ${describe(value)}`, key);
      }
      return ms;
    }
    if (typeof value === "string" && /^\d{4}-\d{2}-\d{2}/.test(value.trim())) {
      try {
        return toEpochMs(value);
      } catch {
        // reported below
      }
    }
  }
  return fail(`"${key}" must be a duration after the fault is added (ms, "30s") or a time (a Date, "2024-01-01T00:05:00Z"); got ${describe(value)}`, key);
}

function describe(value: unknown): string {
  if (value === undefined) return "nothing";
  if (typeof value === "string") return JSON.stringify(value);
  if (Array.isArray(value)) return "an array";
  if (value === null) return "null";
  if (typeof value === "object") return "an object";
  return String(value);
}
