/**
 * The replay bundle file: a versioned JSON document with what a replay needs to build the same
 * world again (seed, start, clock, base URLs, scenario document) and the recorded log (every
 * request with the bytes as received and the answer given, every control action), in order, each
 * with its simulated time. Written by `doubles.bundle(path)` and by `useDoubles()` when a test
 * fails; read by `infra-doubles replay` (docs/guides/replay-a-failing-test.md).
 */
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { dirname } from "node:path";
import { UsageError } from "../../simulator/kernel/errors.js";
import { isoMillis } from "../../simulator/kernel/time.js";
import type { ControlEvent, EncodedValue, RecordedEvent, Unreplayable } from "./recorder.js";

/** The `format` of a bundle file. */
export const BUNDLE_FORMAT = "infra-doubles/bundle";
/** The bundle format version this library writes and reads. */
export const BUNDLE_VERSION = 1;

/**
 * A body in a bundle: `{ "text": ... }` when the bytes are UTF-8 (so the file stays readable and
 * editable), `{ "base64": ... }` otherwise; either gives back the exact bytes.
 */
export type BundleBody = { readonly text: string } | { readonly base64: string };

/** A request of a bundle, with the answer the fake gave. */
export interface BundleRequest {
  readonly kind: "request";
  /** 1-based number of the request among the bundle's requests (what `--until N` and `--diff N` name). */
  readonly n: number;
  /** Simulated time the request arrived (ISO 8601) and the same in ms since the epoch. */
  readonly at: string;
  readonly epochMs: number;
  /** Simulated time it was answered (ms since the epoch). */
  readonly answeredMs: number;
  readonly method: string;
  readonly url: string;
  /** Header names in lower case, as the handler received them. */
  readonly headers: Readonly<Record<string, string>>;
  readonly body: BundleBody;
  readonly bodyTooLarge?: true;
  readonly response: {
    /** 0 when a fault dropped the connection (`drop`). */
    readonly status: number;
    readonly headers: Readonly<Record<string, string>>;
    readonly body: BundleBody;
    readonly drop?: "reset" | "hang-up";
  };
}

/** A control action of a bundle: the recorded event with its time as ISO 8601. */
export type BundleControl = ControlEvent extends infer E ? (E extends ControlEvent ? Omit<E, "at"> & { readonly at: string; readonly epochMs: number } : never) : never;

/** One event of a bundle. */
export type BundleEvent = BundleRequest | BundleControl;

/** A bundle file's document. */
export interface Bundle {
  readonly format: typeof BUNDLE_FORMAT;
  readonly version: typeof BUNDLE_VERSION;
  /** The test that wrote it (`useDoubles()`), when one did. */
  readonly test?: { readonly file: string; readonly name: string; readonly errors?: readonly string[] };
  readonly seed: number | string;
  /** Simulated time the doubles were created at (ISO 8601; the replay's manual clock starts here). */
  readonly start: string;
  /** The clock the recording ran on (`manual`, `advanceable`, `system`, `fake-timers`, `custom`). */
  readonly clock: string;
  /** The services' base URLs (the nock transport's), as the recording resolved them. */
  readonly baseUrls: Readonly<Record<string, Readonly<Record<string, string>>>>;
  /** The scenario document loaded at creation (`createDoubles({ scenario })`), or null. */
  readonly scenario: unknown;
  /** The faults as they stood when the bundle was written (the events add and remove them). */
  readonly faults: readonly unknown[];
  /** What the replay cannot do again (function arguments, user routes, passthrough). */
  readonly unreplayable: readonly Unreplayable[];
  readonly events: readonly BundleEvent[];
}

/** What the doubles hand {@link makeBundle}. */
export interface BundleInput {
  readonly seed: number | string;
  readonly start: number;
  readonly clock: string;
  readonly baseUrls: Readonly<Record<string, Readonly<Record<string, string>>>>;
  readonly scenario: unknown;
  readonly faults: readonly unknown[];
  readonly events: readonly RecordedEvent[];
  readonly unreplayable: readonly Unreplayable[];
  readonly dropped: number;
  readonly limit: number;
  readonly test?: Bundle["test"];
}

/**
 * The bundle document of a recording.
 * @throws {UsageError} when recording was off (`bundle: false`) or events were dropped beyond the
 *   limit (a bundle missing some would replay another world), naming the option that raises it.
 */
export function makeBundle(input: BundleInput): Bundle {
  if (input.limit === 0) throw new UsageError("bundle: these doubles were created with bundle: false, so nothing was recorded (drop the option to record what a bundle needs)");
  if (input.dropped > 0) {
    throw new UsageError(
      `bundle: ${input.limit + input.dropped} requests and control actions happened, more than the ${input.limit} recorded (createDoubles({ bundle: { limit } }) raises it); a bundle without the last ${input.dropped} would replay another world, so none is written`,
    );
  }
  let n = 0;
  const events = input.events.map((event): BundleEvent => {
    if (event.kind !== "request") return { ...event, at: isoMillis(event.at), epochMs: event.at } as BundleControl;
    n++;
    return {
      kind: "request",
      n,
      at: isoMillis(event.at),
      epochMs: event.at,
      answeredMs: event.answeredAt,
      method: event.method,
      url: event.url,
      headers: { ...event.headers },
      body: bundleBody(event.body),
      ...(event.bodyTooLarge === true ? { bodyTooLarge: true as const } : {}),
      response: {
        status: event.status,
        headers: { ...event.responseHeaders },
        body: bundleBody(event.responseBody),
        ...(event.drop === undefined ? {} : { drop: event.drop }),
      },
    };
  });
  return {
    format: BUNDLE_FORMAT,
    version: BUNDLE_VERSION,
    ...(input.test === undefined ? {} : { test: input.test }),
    seed: input.seed,
    start: isoMillis(input.start),
    clock: input.clock,
    baseUrls: input.baseUrls,
    scenario: input.scenario ?? null,
    faults: input.faults,
    unreplayable: input.unreplayable,
    events,
  };
}

const utf8 = new TextDecoder("utf-8", { fatal: true });

/**
 * Bytes as a {@link BundleBody}: text when they are UTF-8, base64 otherwise.
 * @example bundleBody(new TextEncoder().encode("{}")) // { text: "{}" }
 */
export function bundleBody(bytes: Uint8Array | string): BundleBody {
  if (typeof bytes === "string") return { text: bytes };
  try {
    return { text: utf8.decode(bytes) };
  } catch {
    return { base64: Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString("base64") };
  }
}

/** The exact bytes of a {@link BundleBody}. */
export function bodyBytes(body: BundleBody): Uint8Array {
  return "text" in body ? new Uint8Array(Buffer.from(body.text, "utf8")) : new Uint8Array(Buffer.from(body.base64, "base64"));
}

/**
 * Writes `bundle` to `path` (directories made as needed), as pretty JSON.
 * @returns the path written.
 */
export function writeBundle(path: string, bundle: Bundle): string {
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, `${JSON.stringify(bundle, null, 1)}\n`);
  return path;
}

/** A bundle file that cannot be replayed: unreadable, not JSON, another format or version. */
export class BundleError extends Error {
  override readonly name = "BundleError";
}

/**
 * Reads and checks a bundle file.
 * @throws {BundleError} for a file that cannot be read, is not JSON, is not a bundle, has another
 *   version (named), or whose events are not well formed (with the JSON pointer).
 */
export function readBundle(path: string): Bundle {
  let text: string;
  try {
    text = readFileSync(path, "utf8");
  } catch (error) {
    throw new BundleError(`cannot read ${path}: ${(error as Error).message}`);
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw new BundleError(`${path} is not JSON: ${(error as Error).message}`);
  }
  const doc = value as Partial<Bundle> | null;
  if (doc === null || typeof doc !== "object" || doc.format !== BUNDLE_FORMAT) throw new BundleError(`${path} is not an infra-doubles bundle (no "format": "${BUNDLE_FORMAT}")`);
  if (doc.version !== BUNDLE_VERSION) throw new BundleError(`${path} is a bundle of version ${JSON.stringify(doc.version)}; this infra-doubles reads version ${BUNDLE_VERSION}`);
  if (typeof doc.seed !== "number" && typeof doc.seed !== "string") throw new BundleError(`${path}: /seed must be a number or a string`);
  if (typeof doc.start !== "string" || Number.isNaN(Date.parse(doc.start))) throw new BundleError(`${path}: /start must be an ISO 8601 time`);
  if (!Array.isArray(doc.events)) throw new BundleError(`${path}: /events must be an array`);
  for (const [i, event] of (doc.events as unknown[]).entries()) {
    const e = event as Partial<BundleRequest> | null;
    if (e === null || typeof e !== "object" || typeof e.kind !== "string" || typeof e.epochMs !== "number") throw new BundleError(`${path}: /events/${i} must be an event with "kind" and "epochMs"`);
    if (e.kind !== "request") continue;
    if (typeof e.method !== "string" || typeof e.url !== "string" || typeof e.headers !== "object" || !isBody(e.body)) throw new BundleError(`${path}: /events/${i} must be a request with method, url, headers and body`);
    if (typeof e.response !== "object" || e.response === null || typeof e.response.status !== "number" || !isBody(e.response.body)) throw new BundleError(`${path}: /events/${i}/response must have status, headers and body`);
  }
  return doc as Bundle;
}

function isBody(body: unknown): body is BundleBody {
  if (body === null || typeof body !== "object") return false;
  return typeof (body as { text?: unknown }).text === "string" || typeof (body as { base64?: unknown }).base64 === "string";
}

/** The encoded value of a control event's field, for the replay. */
export type { EncodedValue };
