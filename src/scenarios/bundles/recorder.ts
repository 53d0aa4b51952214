/**
 * What a replay bundle needs, recorded as it happens: every request a handler of the doubles
 * answered (the bytes as received and the answer, untruncated), and every control action that
 * changed the world between requests (a scenario control called, a document loaded, a fault added
 * or removed, a reset, a server started), each with the simulated time it happened at, in one
 * ordered log. Replaying the log on fresh doubles with the same seed, start and scenario rebuilds
 * the same world (docs/decisions/bundles.md).
 */
import { isSealed } from "../../simulator/kernel/clone.js";
import type { SimRequest, SimResponse } from "../../interceptors/message.js";

/** Events kept by default before recording stops (the bundle is then refused as incomplete). */
export const DEFAULT_BUNDLE_LIMIT = 10_000;

/** A value of a control call's arguments, as JSON: bytes, dates, maps, sets and `undefined` tagged. */
export type EncodedValue = unknown;

/** A request and its answer, as recorded. */
export interface RecordedRequest {
  readonly kind: "request";
  /** Simulated time the request arrived, ms since the epoch. */
  readonly at: number;
  /** Simulated time it was answered. */
  readonly answeredAt: number;
  readonly method: string;
  readonly url: string;
  readonly headers: Readonly<Record<string, string>>;
  readonly body: Uint8Array;
  /** The transport stopped reading the body at the service's limit (`body` is empty). */
  readonly bodyTooLarge?: true;
  readonly status: number;
  readonly responseHeaders: Readonly<Record<string, string>>;
  /** As the service gave it: text is kept as the string (encoded only when a bundle is written). */
  readonly responseBody: Uint8Array | string;
  /** A fault dropped the connection instead of answering. */
  readonly drop?: "reset" | "hang-up";
}

/** A control action, as recorded (its arguments already encoded, so later changes do not leak in). */
export type ControlEvent =
  | { readonly kind: "call"; readonly at: number; readonly service: string; readonly method: string; readonly args: readonly EncodedValue[] }
  | { readonly kind: "load"; readonly at: number; readonly document: EncodedValue }
  | { readonly kind: "state"; readonly at: number; readonly document: EncodedValue }
  | { readonly kind: "fault.add"; readonly at: number; readonly definition: EncodedValue }
  | { readonly kind: "fault.remove"; readonly at: number; readonly id: string }
  | { readonly kind: "fault.clear"; readonly at: number }
  | { readonly kind: "reset"; readonly at: number }
  | { readonly kind: "mark"; readonly at: number }
  | { readonly kind: "restore"; readonly at: number; readonly snapshot: EncodedValue }
  | { readonly kind: "serve"; readonly at: number; readonly origin: string; readonly keys?: readonly string[] };

/** One recorded event. */
export type RecordedEvent = RecordedRequest | ControlEvent;

/** Something recorded that a replay cannot do again (a function argument, a passthrough). */
export interface Unreplayable {
  /** Index of the event in the log, or -1 for an option. */
  readonly event: number;
  readonly reason: string;
}

const EMPTY = new Uint8Array();

/**
 * The log of one doubles object. Appending costs one small object per request (bodies are kept by
 * reference; a view on a larger pooled buffer is copied, as the journal does); a control call
 * encodes its arguments. Past `limit` events the log stops and remembers how many it missed.
 */
export class BundleRecorder {
  private readonly log: RecordedEvent[] = [];
  private readonly problems: Unreplayable[] = [];
  /** Events that did not fit under the limit. */
  private missed = 0;
  /** Nesting of recorded calls: only the outermost is recorded (what it does inside is its own). */
  private depth = 0;

  /**
   * @param limit - events kept at most (0: records nothing).
   * @param now - the simulator clock's time, read without catching up.
   */
  constructor(
    readonly limit: number,
    private readonly now: () => number,
  ) {}

  /** Whether recording is on (a limit above 0). */
  get enabled(): boolean {
    return this.limit > 0;
  }

  /** The events, oldest first. */
  get events(): readonly RecordedEvent[] {
    return this.log;
  }

  /** What a replay cannot do again. */
  get unreplayable(): readonly Unreplayable[] {
    return this.problems;
  }

  /** Events that were not recorded because the log was full. */
  get dropped(): number {
    return this.missed;
  }

  /** Forgets everything (creation is over: what it did is the bundle's options and scenario). */
  restart(): void {
    this.log.length = 0;
    this.problems.length = 0;
    this.missed = 0;
  }

  /** Notes something a replay cannot do again. */
  note(reason: string): void {
    if (this.enabled) this.problems.push({ event: -1, reason });
  }

  /** Records a request and its answer (called by the handler, through the journal's tap). */
  request(request: SimRequest, response: SimResponse, startedAt: number, answeredAt: number): void {
    if (!this.enabled || this.depth > 0) return;
    this.push({
      kind: "request",
      at: startedAt,
      answeredAt,
      method: request.method,
      url: request.url.href,
      headers: request.headers,
      body: own(request.body),
      ...(request.bodyTooLarge === true ? { bodyTooLarge: true as const } : {}),
      status: response.drop === undefined ? response.status : 0,
      responseHeaders: response.headers,
      responseBody: typeof response.body === "string" ? response.body : own(response.body ?? EMPTY),
      ...(response.drop === undefined ? {} : { drop: response.drop }),
    });
  }

  /** Records a control action (nothing inside a recorded call: replaying the call does it again). */
  control(event: ControlEvent): void {
    if (!this.enabled || this.depth > 0) return;
    this.push(event);
  }

  /** Records the call `service.method(...args)` and runs it; calls it makes are not recorded. */
  call<T>(service: string, method: string, args: readonly unknown[], run: () => T): T {
    if (this.enabled && this.depth === 0) {
      const problems: string[] = [];
      const encoded = args.map((arg, i) => encodeValue(arg, `${method} argument ${i + 1}`, problems));
      this.push({ kind: "call", at: this.now(), service, method, args: encoded });
      for (const reason of problems) this.problems.push({ event: this.log.length - 1, reason: `${service}.${reason}` });
    }
    return this.quietly(run);
  }

  /** Runs `run` without recording what it does (a document load recorded as one event). */
  quietly<T>(run: () => T): T {
    this.depth++;
    try {
      return run();
    } finally {
      this.depth--;
    }
  }

  /** Time for a control event. */
  time(): number {
    return this.now();
  }

  private push(event: RecordedEvent): void {
    if (this.missed > 0 || this.log.length >= this.limit) {
      this.missed++;
      return;
    }
    this.log.push(event);
  }
}

/** `bytes` owned: a view on a larger (pooled) buffer is copied so it does not pin the buffer. */
function own(bytes: Uint8Array): Uint8Array {
  return bytes.byteLength === bytes.buffer.byteLength ? bytes : bytes.slice();
}

/**
 * A value as JSON: strings, numbers, booleans, null, arrays and plain objects as they are;
 * `undefined` as `{"$undefined":true}`, bytes as `{"$bytes": base64}`, a Date as `{"$date": ISO}`,
 * a Map as `{"$map": [[k, v], ...]}`, a Set as `{"$set": [...]}`, a non-finite number as
 * `{"$number": "NaN"}`. A function cannot be recorded: it becomes `{"$function": name}` and a
 * problem is added to `problems`. An object with a `$` key of its own is wrapped in `{"$object": ...}`.
 * @example encodeValue(new Uint8Array([1, 2]), "arg", []) // { $bytes: "AQI=" }
 */
export function encodeValue(value: unknown, where: string, problems: string[]): EncodedValue {
  return encodeInner(value, where, problems, new Set(), 0);
}

/** How deep {@link encodeValue} follows nested values (a scenario document is at most 100 deep). */
const MAX_ENCODED_DEPTH = 1000;

function encodeInner(value: unknown, where: string, problems: string[], path: Set<object>, depth: number): EncodedValue {
  if (value === undefined) return { $undefined: true };
  if (value === null || typeof value === "string" || typeof value === "boolean") return value;
  if (typeof value === "number") return Number.isFinite(value) ? value : { $number: String(value) };
  if (typeof value === "bigint") return { $bigint: value.toString() };
  if (typeof value === "function") {
    problems.push(`${where}: a function (${value.name || "anonymous"}) cannot be recorded; the replay skips this action`);
    return { $function: value.name || "anonymous" };
  }
  if (typeof value !== "object") {
    problems.push(`${where}: a ${typeof value} cannot be recorded`);
    return { $unrecorded: typeof value };
  }
  if (ArrayBuffer.isView(value)) return { $bytes: Buffer.from(value.buffer, value.byteOffset, value.byteLength).toString("base64") };
  if (value instanceof ArrayBuffer) return { $bytes: Buffer.from(value).toString("base64") };
  if (value instanceof Date) return { $date: Number.isNaN(value.getTime()) ? "invalid" : value.toISOString() };
  // A value that contains itself, or nests deeper than any document the services accept, is not
  // followed (it would exhaust the stack): the action is marked as one a replay cannot do again.
  if (path.has(value)) {
    problems.push(`${where}: a value that contains itself cannot be recorded`);
    return { $unrecorded: "cycle" };
  }
  if (depth >= MAX_ENCODED_DEPTH) {
    problems.push(`${where}: a value nested more than ${MAX_ENCODED_DEPTH} levels deep cannot be recorded`);
    return { $unrecorded: "too deep" };
  }
  path.add(value);
  try {
    const inner = (v: unknown, at: string): EncodedValue => encodeInner(v, at, problems, path, depth + 1);
    if (value instanceof Map) return { $map: [...value].map(([k, v], i) => [inner(k, `${where}[key ${i}]`), inner(v, `${where}[${i}]`)]) };
    if (value instanceof Set) return { $set: [...value].map((v, i) => inner(v, `${where}[${i}]`)) };
    if (Array.isArray(value)) return value.map((v, i) => inner(v, `${where}[${i}]`));
    const out: Record<string, unknown> = {};
    for (const key of Object.keys(value)) {
      Object.defineProperty(out, key, { value: inner((value as Record<string, unknown>)[key], `${where}.${key}`), enumerable: true, writable: true, configurable: true });
    }
    return Object.keys(out).some((key) => key.startsWith("$")) ? { $object: out } : out;
  } finally {
    path.delete(value);
  }
}

/**
 * The `restore` event of `snapshot`, taken at `at`. A snapshot's service states, as
 * `Simulator.snapshot()` makes them, are sealed (frozen, never changed): they are kept by reference
 * and encoded only when a bundle is written, so a restore costs the recorder what the restore
 * touches (the schedule, ids and stored bytes, encoded now), not every stored resource.
 * Any other snapshot is encoded now.
 * @example recorder.control(restoreEvent(recorder.time(), doubles.snapshot()))
 */
export function restoreEvent(at: number, snapshot: Readonly<Record<string, unknown>>): ControlEvent {
  const services = snapshot.services as Readonly<Record<string, unknown>> | undefined;
  if (services === undefined || !Object.values(services).every(isSealed)) return { kind: "restore", at, snapshot: encodeValue(snapshot, "restore", []) };
  const parts: Record<string, EncodedValue> = {};
  for (const key of Object.keys(snapshot)) if (key !== "services") parts[key] = encodeValue(snapshot[key], `restore.${key}`, []);
  let encoded: EncodedValue | undefined;
  const event = { kind: "restore", at } as { kind: "restore"; at: number; snapshot: EncodedValue };
  Object.defineProperty(event, "snapshot", {
    enumerable: true,
    get: () => {
      if (encoded === undefined) {
        const whole: Record<string, EncodedValue> = {};
        for (const key of Object.keys(snapshot)) whole[key] = key === "services" ? encodeValue(services, "restore.services", []) : (parts[key] as EncodedValue);
        encoded = whole;
      }
      return encoded;
    },
  });
  return event;
}

/**
 * The value {@link encodeValue} encoded. A recorded function comes back as a function that throws.
 * @example decodeValue({ $bytes: "AQI=" }) // Uint8Array [1, 2]
 */
export function decodeValue(value: EncodedValue): unknown {
  if (value === null || typeof value !== "object") return value;
  if (Array.isArray(value)) return value.map(decodeValue);
  const record = value as Record<string, unknown>;
  const keys = Object.keys(record);
  if (keys.length === 1) {
    const [key] = keys as [string];
    const inner = record[key];
    switch (key) {
      case "$undefined":
        return undefined;
      case "$number":
        return Number(inner);
      case "$bigint":
        return BigInt(String(inner));
      case "$bytes":
        return new Uint8Array(Buffer.from(String(inner), "base64"));
      case "$date":
        return new Date(inner === "invalid" ? Number.NaN : String(inner));
      case "$map":
        return new Map((inner as [unknown, unknown][]).map(([k, v]) => [decodeValue(k), decodeValue(v)]));
      case "$set":
        return new Set((inner as unknown[]).map(decodeValue));
      case "$function":
        return () => {
          throw new Error(`infra-doubles replay: the function ${String(inner)} was not recorded in the bundle`);
        };
      case "$object":
        return decodePlain(inner as Record<string, unknown>);
      default:
        break;
    }
  }
  return decodePlain(record);
}

function decodePlain(record: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const key of Object.keys(record)) {
    Object.defineProperty(out, key, { value: decodeValue(record[key]), enumerable: true, writable: true, configurable: true });
  }
  return out;
}
