/**
 * Replaying a bundle: fresh doubles with the bundle's seed, start, base URLs and scenario on a
 * manual clock; then every event in order, the clock moved to each event's simulated time first:
 * a control action done again, a request sent to the handler it went to (the nock base URLs, or a
 * server's origin) and its answer compared, byte for byte, with the recorded one.
 */
import type { Handler } from "../../interceptors/handler.js";
import { isoMillis } from "../../simulator/kernel/time.js";
import type { SimulatorSnapshot } from "../../simulator/kernel/simulator.js";
import { createDoubles, type Doubles } from "../doubles.js";
import type { FaultDefinition } from "../faults/fault-definition.js";
import { bodyBytes, type Bundle, type BundleControl, type BundleRequest } from "./bundle.js";
import { importState } from "../state/document.js";
import { diffValues, formatChanges, showValue, type Change } from "./diff.js";
import { decodeValue, type RecordedRequest } from "./recorder.js";

/** Options of {@link replayBundle}. */
export interface ReplayOptions {
  /** Stop before request N (1-based): the doubles are left as the world was then. */
  readonly until?: number;
  /** Take the simulator snapshot before and after request N and return what changed. */
  readonly diff?: number;
}

/** A request whose replayed answer is not the recorded one. */
export interface ReplayMismatch {
  readonly request: BundleRequest;
  /** The answer given on replay. */
  readonly actual: { readonly status: number; readonly headers: Readonly<Record<string, string>>; readonly body: Uint8Array | string; readonly drop?: string };
  /** The difference, readable: status, headers, then the body (the first differing byte, and JSON paths when both are JSON). */
  readonly report: string;
}

/** What {@link replayBundle} found. */
export interface ReplayResult {
  /** The doubles replayed on (still open; close them). */
  readonly doubles: Doubles;
  /** Requests in the bundle. */
  readonly requests: number;
  /** Requests sent on replay. */
  readonly replayed: number;
  /** The first request answered differently, if one was. */
  readonly mismatch?: ReplayMismatch;
  /** With `until`: the request the replay stopped before. */
  readonly stoppedBefore?: BundleRequest;
  /** With `diff`: the request and the state it changed. */
  readonly diff?: { readonly request: BundleRequest; readonly changes: readonly Change[] };
  /** Events that could not be done again (function arguments, user routes), and why. */
  readonly warnings: readonly string[];
}

/**
 * Replays `bundle` on fresh doubles.
 * @throws {RangeError} for an `until` or `diff` that names no request of the bundle.
 * @example
 * const result = await replayBundle(readBundle("bundle.json"));
 * if (result.mismatch) console.log(result.mismatch.report);
 * await result.doubles.close();
 */
export async function replayBundle(bundle: Bundle, options: ReplayOptions = {}): Promise<ReplayResult> {
  const requests = bundle.events.filter((e): e is BundleRequest => e.kind === "request");
  for (const [name, n] of [["until", options.until], ["diff", options.diff]] as const) {
    if (n !== undefined && !(Number.isSafeInteger(n) && n >= 1 && n <= requests.length)) {
      throw new RangeError(`--${name} ${String(n)}: the bundle has requests 1 to ${requests.length}`);
    }
  }
  const doubles = createDoubles({
    seed: bundle.seed,
    clock: "manual",
    start: bundle.start,
    baseUrls: bundle.baseUrls as never,
    coverage: false,
    ...(bundle.scenario === null || bundle.scenario === undefined ? {} : { scenario: bundle.scenario as never }),
  });
  const warnings = bundle.unreplayable.map((u) => (u.event < 0 ? u.reason : `event ${u.event + 1}: ${u.reason}`));
  const skipped = new Set(bundle.unreplayable.filter((u) => u.event >= 0).map((u) => u.event));
  const servers: Handler[] = [];
  const last = Math.max(options.until === undefined ? 0 : options.until - 1, options.diff ?? 0);
  let mismatch: ReplayMismatch | undefined;
  let stoppedBefore: BundleRequest | undefined;
  let diff: ReplayResult["diff"];
  let replayed = 0;
  for (const [index, event] of bundle.events.entries()) {
    if (event.kind === "request" && event.n === options.until) {
      stoppedBefore = event;
      break;
    }
    // Past the first difference the worlds part: go on only as far as `until` or `diff` asks.
    if (mismatch !== undefined && event.kind === "request" && event.n > last) break;
    moveClockTo(doubles, event.epochMs);
    if (event.kind !== "request") {
      if (!skipped.has(index)) act(doubles, event, servers, warnings, index);
      continue;
    }
    const before: SimulatorSnapshot | undefined = event.n === options.diff ? doubles.snapshot() : undefined;
    const url = new URL(event.url);
    const handler = [...servers].reverse().find((h) => h.owns(url)) ?? doubles.handler;
    const seen = recordedCount(doubles);
    await handler.handle({
      method: event.method,
      url,
      headers: event.headers,
      body: bodyBytes(event.body),
      ...(event.bodyTooLarge === true ? { bodyTooLarge: true } : {}),
    });
    replayed++;
    const recorded = recordedCount(doubles) > seen ? lastRequest(doubles) : undefined;
    if (recorded === undefined) warnings.push(`request ${event.n}: the replay recorded no answer`);
    if (mismatch === undefined && recorded !== undefined) {
      const report = compare(event, recorded);
      if (report !== undefined) {
        mismatch = {
          request: event,
          actual: { status: recorded.status, headers: recorded.responseHeaders, body: recorded.responseBody, ...(recorded.drop === undefined ? {} : { drop: recorded.drop }) },
          report,
        };
      }
    }
    if (before !== undefined) diff = { request: event, changes: diffValues(before, doubles.snapshot()) };
  }
  return {
    doubles,
    requests: requests.length,
    replayed,
    ...(mismatch === undefined ? {} : { mismatch }),
    ...(stoppedBefore === undefined ? {} : { stoppedBefore }),
    ...(diff === undefined ? {} : { diff }),
    warnings,
  };
}

/** Moves the replay's manual clock forward to `epochMs` (firing what falls due); never back. */
function moveClockTo(doubles: Doubles, epochMs: number): void {
  const now = doubles.sim.clock.now();
  if (epochMs > now) doubles.advance(epochMs - now);
}

/** The replay doubles' own recorder's events (what its handlers answered). */
function recordedEvents(doubles: Doubles): readonly { readonly kind: string }[] {
  return (doubles as unknown as { recorder: { events: readonly { kind: string }[] } }).recorder.events;
}

function recordedCount(doubles: Doubles): number {
  return recordedEvents(doubles).length;
}

/** The last request the replay's own recorder holds. */
function lastRequest(doubles: Doubles): RecordedRequest | undefined {
  const events = recordedEvents(doubles);
  for (let i = events.length - 1; i >= 0; i--) {
    const event = events[i];
    if (event?.kind === "request") return event as RecordedRequest;
  }
  return undefined;
}

/** Does a control action again; one that threw when recorded throws again, and is passed over. */
function act(doubles: Doubles, event: BundleControl, servers: Handler[], warnings: string[], index: number): void {
  try {
    switch (event.kind) {
      case "call": {
        const controls = doubles.controlsOf<Record<string, (...args: unknown[]) => unknown>>(event.service);
        const method = controls[event.method];
        if (typeof method !== "function") {
          warnings.push(`event ${index + 1}: ${event.service}.${event.method} is no scenario control of this infra-doubles`);
          return;
        }
        method(...event.args.map(decodeValue));
        return;
      }
      case "load":
        doubles.load(decodeValue(event.document) as never);
        return;
      case "state":
        importState(doubles, decodeValue(event.document));
        return;
      case "fault.add":
        doubles.faults.add(decodeValue(event.definition) as FaultDefinition);
        return;
      case "fault.remove":
        doubles.faults.remove(event.id);
        return;
      case "fault.clear":
        doubles.faults.clear();
        return;
      case "reset":
        doubles.reset();
        return;
      case "mark":
        (doubles as unknown as { markResetPoint(): void }).markResetPoint();
        return;
      case "restore":
        doubles.restore(decodeValue(event.snapshot) as SimulatorSnapshot);
        return;
      case "serve":
        servers.push(doubles.handlerFor(event.origin, event.keys));
        return;
      default:
        warnings.push(`event ${index + 1}: unknown kind ${JSON.stringify((event as { kind: unknown }).kind)}`);
    }
  } catch {
    // It threw when it was recorded too (same world, same arguments): nothing was kept then either.
  }
}

/** The readable difference between a recorded answer and the replayed one, or undefined when byte-identical. */
function compare(expected: BundleRequest, actual: RecordedRequest): string | undefined {
  const lines: string[] = [];
  if (expected.response.status !== actual.status) lines.push(`  status: ${expected.response.status} -> ${actual.status}`);
  if ((expected.response.drop ?? null) !== (actual.drop ?? null)) lines.push(`  dropped connection: ${expected.response.drop ?? "no"} -> ${actual.drop ?? "no"}`);
  const names = [...new Set([...Object.keys(expected.response.headers), ...Object.keys(actual.responseHeaders)])];
  for (const name of names) {
    const a = expected.response.headers[name];
    const b = actual.responseHeaders[name];
    if (a !== b) lines.push(`  header ${name}: ${showValue(a)} -> ${showValue(b)}`);
  }
  if (lines.length === 0 && JSON.stringify(Object.keys(expected.response.headers)) !== JSON.stringify(Object.keys(actual.responseHeaders))) {
    lines.push(`  header order: ${Object.keys(expected.response.headers).join(", ")} -> ${Object.keys(actual.responseHeaders).join(", ")}`);
  }
  const recorded = Buffer.from(bodyBytes(expected.response.body));
  const replayed = typeof actual.responseBody === "string" ? Buffer.from(actual.responseBody, "utf8") : Buffer.from(actual.responseBody);
  if (!recorded.equals(replayed)) lines.push(...bodyDiff(recorded, replayed));
  if (lines.length === 0) return undefined;
  return [`request ${expected.n}: ${expected.method} ${expected.url} at ${expected.at} was answered differently (recorded -> replayed)`, ...lines].join("\n");
}

/** The first differing byte with some context on each side, and JSON paths when both bodies are JSON. */
function bodyDiff(recorded: Buffer, replayed: Buffer): string[] {
  let at = 0;
  while (at < recorded.length && at < replayed.length && recorded[at] === replayed[at]) at++;
  const before = recorded.subarray(0, at).toString("utf8");
  const line = before.split("\n").length;
  const column = at - (before.lastIndexOf("\n") + 1) + 1;
  const around = (bytes: Buffer): string => {
    const from = Math.max(0, at - 40);
    const piece = bytes.subarray(from, Math.min(bytes.length, at + 40));
    const text = piece.toString("utf8");
    return `${from > 0 ? "..." : ""}${[...text].some((c) => c.charCodeAt(0) < 9 || (c.charCodeAt(0) > 13 && c.charCodeAt(0) < 32)) || text.includes("\uFFFD") ? `<bytes ${piece.toString("hex")}>` : JSON.stringify(text)}${at + 40 < bytes.length ? "..." : ""}`;
  };
  const lines = [
    `  body: ${recorded.length} -> ${replayed.length} bytes, first difference at byte ${at} (line ${line}, column ${column})`,
    `    recorded: ${around(recorded)}`,
    `    replayed: ${around(replayed)}`,
  ];
  const parse = (bytes: Buffer): unknown => {
    try {
      return JSON.parse(bytes.toString("utf8")) as unknown;
    } catch {
      return undefined;
    }
  };
  const a = parse(recorded);
  const b = parse(replayed);
  if (a !== undefined && b !== undefined) {
    const changes = diffValues(a, b);
    if (changes.length > 0) lines.push("  body (JSON):", ...formatChanges(changes.slice(0, 20)).map((l) => `    ${l}`), ...(changes.length > 20 ? [`    ... and ${changes.length - 20} more`] : []));
    else lines.push("  body (JSON): the same value, written with other bytes (key order, spacing, escapes)");
  }
  return lines;
}

/** A request as one line: `#N METHOD URL (at TIME)`. */
export function describeRequest(request: BundleRequest): string {
  return `#${request.n} ${request.method} ${request.url} (at ${isoMillis(request.epochMs)})`;
}
