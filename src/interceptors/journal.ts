/**
 * The request journal: every request a handler answered, with what was sent and what came back,
 * kept in a ring of bounded size with bodies cut at a bounded length, so a test run of any length
 * holds a bounded amount of memory. Bodies are kept as the bytes (or the string) the transport
 * already had, and decoded only when read; credentials are masked whenever an entry is printed
 * ({@link formatJournal}, `util.inspect`, `GET /_sim/journal`), never in the stored values.
 *
 * Implements DESIGN.md "Journal and coverage" (observed at the handler); see
 * docs/decisions/journal.md.
 */
import { inspect } from "node:util";
import { toEpochMs, type Instant } from "../simulator/kernel/clock.js";
import { UsageError } from "../simulator/kernel/errors.js";
import { isoMillis } from "../simulator/kernel/time.js";
import type { SimRequest, SimResponse } from "./message.js";
import { nearestName, splitRoute, type MountedRoute, type OperationName, type RouteName, type RouteTemplate, type ServiceKey, type UserRouteName, type Vocabulary } from "./vocabulary.js";

/** Entries kept by default (the oldest go first beyond it). */
export const DEFAULT_JOURNAL_LIMIT = 1000;

/**
 * Bytes of each request and response body kept by default (16 KiB): the services' JSON documents
 * fit whole; an upload or a long list is cut there (`truncated`, `size` keeps the full length).
 * With the default limits a journal holds at most 1000 x 2 x 16 KiB = 32 MiB of bodies.
 */
export const DEFAULT_JOURNAL_BODY_BYTES = 16 * 1024;

/** What stands in for a masked credential when an entry is printed. */
export const MASK = "***";

/** Query parameters and JSON body fields whose values are masked when printed (`token`, `client_token`, `password`, ...). */
const CREDENTIAL_PARAMETER = /token|secret|password|passwd|passphrase|credential|signature|api[-_]?key|access[-_]?key|private[-_]?key|^auth|^code$|^otp$/i;

/** Headers whose values are masked when printed. */
const CREDENTIAL_HEADER = /token|authorization|cookie|secret|password|api[-_]?key|^x-amz-security/i;

/**
 * A URL with the values of credential-like query parameters replaced by {@link MASK}
 * (`?token=s.abc` becomes `?token=***`); other parameters and the path are kept as sent.
 * @example maskUrl("http://127.0.0.1:8080/v1/sys/health?token=abc&x=1") // "http://127.0.0.1:8080/v1/sys/health?token=***&x=1"
 */
export function maskUrl(href: string): string {
  const at = href.indexOf("?");
  if (at < 0) return href;
  const hash = href.indexOf("#", at);
  const query = href.slice(at + 1, hash < 0 ? undefined : hash);
  const masked = query
    .split("&")
    .map((pair) => {
      const eq = pair.indexOf("=");
      const rawName = eq < 0 ? pair : pair.slice(0, eq);
      let name = rawName;
      try {
        name = decodeURIComponent(rawName.replace(/\+/g, " "));
      } catch {
        // keep the raw name
      }
      return eq >= 0 && CREDENTIAL_PARAMETER.test(name) ? `${rawName}=${MASK}` : pair;
    })
    .join("&");
  return `${href.slice(0, at + 1)}${masked}${hash < 0 ? "" : href.slice(hash)}`;
}

/**
 * Headers with the values of credential headers (`X-Vault-Token`, `X-Consul-Token`,
 * `Authorization`, cookies, ...) replaced by {@link MASK}.
 * @example maskHeaders({ "x-vault-token": "s.abc", accept: "*\/*" }) // { "x-vault-token": "***", accept: "*\/*" }
 */
export function maskHeaders(headers: Readonly<Record<string, string>>): Record<string, string> {
  return Object.fromEntries(Object.entries(headers).map(([name, value]) => [name, CREDENTIAL_HEADER.test(name) ? MASK : value]));
}

/**
 * A JSON value with the values of credential-like fields (`token`, `client_token`, `SecretID`,
 * `password`, `secret_id`, ...) replaced by {@link MASK}, at any depth.
 * Only strings and numbers are masked: objects under such a name are masked field by field. Strings
 * that carry a query get {@link maskUrl}.
 * @example maskJson({ auth: { client_token: "s.abc", policies: ["default"] } }) // { auth: { client_token: "***", policies: ["default"] } }
 */
export function maskJson(value: unknown): unknown {
  // A link that echoes the request's query (`links.self` of a list) carries its credentials too.
  if (typeof value === "string") return value.includes("?") && value.includes("=") ? maskUrl(value) : value;
  if (Array.isArray(value)) return value.map(maskJson);
  if (typeof value !== "object" || value === null) return value;
  return Object.fromEntries(
    Object.entries(value as Record<string, unknown>).map(([key, field]) => [
      key,
      CREDENTIAL_PARAMETER.test(key) && ((typeof field === "string" && field !== "") || typeof field === "number") ? MASK : maskJson(field),
    ]),
  );
}

const utf8 = new TextDecoder("utf-8", { fatal: true });

/** Where {@link flat} puts the character it reads, so that no compiler drops the read. */
let _flattened = 0;

/**
 * `text`, stored by V8 as one run of characters from now on. A string built by concatenation (a
 * serializer's template) is a tree of its parts until something reads its characters; a journal
 * entry that kept the tree would hold all the parts: 15.3 KB for 1.7 KB of JSON text built in 80
 * steps, 1.9 KB once flat (measured on Node 20). Reading one character makes V8 flatten it, which
 * a transport does anyway when it encodes the body.
 * @example flat(`{"id":${JSON.stringify(id)}}`) // the same text
 */
function flat(text: string): string {
  if (text.length > 0) _flattened ^= text.charCodeAt(text.length - 1);
  return text;
}

/**
 * A request or response body as the journal keeps it: at most the journal's body limit, decoded
 * only when read.
 */
export class JournalBody {
  /** An empty body. */
  static readonly EMPTY = new JournalBody(new Uint8Array(), 0, false);

  private decoded: string | null | undefined;

  private constructor(
    private readonly raw: Uint8Array | string,
    /** The whole body's length in bytes (also when cut). */
    readonly size: number,
    /** Whether the kept bytes are only the first part of the body. */
    readonly truncated: boolean,
  ) {}

  /**
   * Keeps `body` up to `limit` bytes: small bodies by reference (no copy; a string is made one
   * flat run of characters first, so an entry never holds the parts it was concatenated from),
   * longer ones as a copy of their first `limit` bytes (the rest of the buffer is not held).
   * @example JournalBody.of(new TextEncoder().encode('{"a":1}'), 16384).json() // { a: 1 }
   */
  static of(body: Uint8Array | string | undefined, limit: number): JournalBody {
    if (body === undefined || body.length === 0) return JournalBody.EMPTY;
    if (typeof body === "string") {
      // A string is at most 3 bytes per UTF-16 unit: short ones need no byte count now.
      if (body.length * 3 <= limit) return new JournalBody(flat(body), -1, false);
      const bytes = Buffer.from(body, "utf8");
      return bytes.length <= limit ? new JournalBody(flat(body), bytes.length, false) : new JournalBody(new Uint8Array(bytes.subarray(0, limit)), bytes.length, true);
    }
    if (body.length <= limit) {
      // A view on a larger buffer (node's pooled slabs) would hold that buffer: copy it.
      return new JournalBody(body.byteLength === body.buffer.byteLength ? body : body.slice(), body.length, false);
    }
    return new JournalBody(body.slice(0, limit), body.length, true);
  }

  /** The kept bytes. */
  get bytes(): Uint8Array {
    return typeof this.raw === "string" ? new Uint8Array(Buffer.from(this.raw, "utf8")) : this.raw;
  }

  /** Length in bytes of the whole body. */
  get length(): number {
    return this.size >= 0 ? this.size : Buffer.byteLength(this.raw as string, "utf8");
  }

  /**
   * The kept bytes as UTF-8 text; `undefined` when they are not valid UTF-8 (a binary upload, or
   * a body cut inside a character).
   */
  text(): string | undefined {
    if (this.decoded === undefined) {
      if (typeof this.raw === "string") this.decoded = this.raw;
      else {
        try {
          this.decoded = utf8.decode(this.raw);
        } catch {
          this.decoded = null;
        }
      }
    }
    return this.decoded ?? undefined;
  }

  /** The body parsed as JSON; `undefined` when it is empty, cut, or not JSON. */
  json(): unknown {
    const text = this.truncated ? undefined : this.text();
    if (text === undefined || text === "") return undefined;
    try {
      return JSON.parse(text) as unknown;
    } catch {
      return undefined;
    }
  }

  /**
   * The body as printed: JSON with credential fields masked ({@link maskJson}) unless `reveal`,
   * other text as is, bytes as `<N bytes>`, a cut body marked with its full size.
   */
  show(reveal = false): string {
    if (this.length === 0) return "";
    const parsed = this.json();
    const text = parsed === undefined ? this.text() : JSON.stringify(reveal ? parsed : maskJson(parsed));
    const shown = text ?? `<${this.bytes.length} bytes of binary data>`;
    return this.truncated ? `${shown}... (${this.length} bytes, first ${this.bytes.length} kept)` : shown;
  }

  /** The body's text for `JSON.stringify` (base64 when it is not UTF-8). */
  toJSON(): string {
    return this.text() ?? Buffer.from(this.bytes).toString("base64");
  }
}

/** What a handler learned about one request, for its journal entry. */
export interface JournalRecord {
  /** Simulator time when the request was answered, ms since the epoch. */
  readonly at: number;
  /** Simulator time when the request arrived (before any due move fired), ms since the epoch. */
  readonly startedAt: number;
  readonly service: string | undefined;
  readonly method: string;
  readonly url: string;
  readonly route: string | undefined;
  /** The method the route's name carries when it is not the one sent (secrets: `POST` for a `PUT`). */
  readonly routeMethod?: string | undefined;
  readonly operation: string | undefined;
  readonly requestHeaders: Readonly<Record<string, string>>;
  readonly requestBody: JournalBody;
  readonly status: number;
  readonly responseHeaders: Readonly<Record<string, string>>;
  readonly responseBody: JournalBody;
  readonly nearest: readonly string[] | undefined;
  readonly error: string | undefined;
  readonly fault: string | undefined;
  /** An upload whose archive was read: the paths of its regular files. */
  readonly configurationFiles?: readonly string[] | undefined;
  /** Who answered instead of the service's own routes (a user route, a passthrough). */
  readonly answeredBy?: "user route" | "passthrough" | undefined;
}

/**
 * One answered request, as kept in the journal.
 *
 * Printed (`console.log(entry)`, {@link formatJournal}) with credentials masked; the fields hold
 * what was really sent.
 */
export class JournalEntry {
  /** Position in the journal since the doubles were created, from 1 (clearing does not restart it). */
  readonly seq: number;
  /** Simulator time when the request was answered, ms since the epoch. */
  readonly at: number;
  /**
   * Simulated time the request took, in ms: 0 on the manual clock unless something advanced it
   * meanwhile (a latency fault); real time under the system and fake-timers clocks.
   */
  readonly durationMs: number;
  /** The key of the service that answered (`runs`, `accessControl`, `secrets`); `undefined` when no service is mounted at the URL. */
  readonly service: string | undefined;
  /** The method as sent (`GET`, `LIST`, `patch`). */
  readonly method: string;
  /** The full URL as sent. */
  readonly url: string;
  /**
   * The matched route template relative to the service's base, without the API prefix
   * (`/runs/:run_id/actions/apply`, `/sys/mounts/*path`, `/acl/token/:AccessorID`,
   * `/ssh/creds/:name`; a secrets engine on another mount path: that path, `/ssh-prod/creds/:name`);
   * `undefined` when no route matched.
   */
  readonly route: string | undefined;
  /** The operation's name (`apply run`, `create token`, `read`); `undefined` when none is known. */
  readonly operation: string | undefined;
  /** The request's headers as received (names in lower case). */
  readonly headers: Readonly<Record<string, string>>;
  /** The request body (bounded, see {@link DEFAULT_JOURNAL_BODY_BYTES}). */
  readonly requestBody: JournalBody;
  /** The response status. */
  readonly status: number;
  /** The response headers as sent (without the `Content-Length` transports add). */
  readonly responseHeaders: Readonly<Record<string, string>>;
  /** The response body (bounded). */
  readonly responseBody: JournalBody;
  /** For a request that matches none of the service's endpoints: the nearest ones (`METHOD /path`). */
  readonly nearest?: readonly string[];
  /** For a 500 that is a bug of the fake: the error's stack trace (never sent in the response). */
  readonly error?: string;
  /**
   * The id of the fault applied to this request (`doubles.faults`), if one was. A dropped
   * connection is journalled with status 0.
   */
  readonly fault?: string;
  /**
   * For an upload to a configuration version's `upload-url` whose archive was read: the paths of the
   * regular files it holds, in archive order (absent when the version ended `errored`), as
   * `doubles.runs.configurationFiles(cvId)` lists them.
   */
  readonly configurationFiles?: readonly string[];
  /**
   * Who answered instead of the service's own routes: `"user route"` (a route added with
   * `doubles.<service>.route()`; {@link JournalEntry.route} is its template) or `"passthrough"`
   * (forwarded to the real server given as `passthrough`; `route` is `undefined`). Absent when
   * the fake itself answered.
   */
  readonly answeredBy?: "user route" | "passthrough";

  /** The method {@link JournalEntry.endpoint} carries, when not the one sent. */
  readonly #routeMethod: string | undefined;

  /** @internal Entries are made by the journal (`RequestJournal`), never by users. */
  constructor(seq: number, record: JournalRecord) {
    this.#routeMethod = record.routeMethod;
    this.seq = seq;
    this.at = record.at;
    this.durationMs = Math.max(0, record.at - record.startedAt);
    this.service = record.service;
    this.method = record.method;
    this.url = record.url;
    this.route = record.route;
    this.operation = record.operation;
    this.headers = record.requestHeaders;
    this.requestBody = record.requestBody;
    this.status = record.status;
    this.responseHeaders = record.responseHeaders;
    this.responseBody = record.responseBody;
    if (record.nearest !== undefined) this.nearest = record.nearest;
    if (record.error !== undefined) this.error = record.error;
    if (record.fault !== undefined) this.fault = record.fault;
    if (record.configurationFiles !== undefined) this.configurationFiles = record.configurationFiles;
    if (record.answeredBy !== undefined) this.answeredBy = record.answeredBy;
  }

  /**
   * Whether a real endpoint of a mounted service answered (a route matched, no "nearest"
   * suggestion), a user route, or the real server of a passthrough.
   */
  get matched(): boolean {
    return (this.route !== undefined && this.nearest === undefined) || this.answeredBy === "passthrough";
  }

  /**
   * The matched route's name as the specs write it, `METHOD /template` (`POST /runs/:run_id/actions/apply`,
   * `POST /ssh/creds/:name`), or `undefined`. The method is the one sent, except where the spec
   * names the route with another: the secrets service's `POST` for a `PUT` write, `LIST` for a
   * `GET ?list=true`.
   */
  get endpoint(): string | undefined {
    return this.route === undefined ? undefined : `${this.#routeMethod ?? this.method} ${this.route}`;
  }

  /** The request body parsed as JSON (`undefined` when empty, cut or not JSON). */
  get body(): unknown {
    return this.requestBody.json();
  }

  /** The entry printed on a few lines, credentials masked (see {@link formatJournal}). */
  toString(): string {
    return formatEntry(this, false);
  }

  [inspect.custom](): string {
    return formatEntry(this, false);
  }
}

/**
 * Which entries {@link RequestJournal.filter} keeps; every given field must match. A service,
 * route or operation that the doubles do not have is refused (a `UsageError` naming the nearest
 * valid one), never a filter that silently matches nothing.
 */
export interface JournalFilter {
  /** Service key: `runs`, `accessControl` or `secrets`. */
  readonly service?: ServiceKey;
  /**
   * Route as the specs write it, with or without the method: `POST /runs/:run_id/actions/apply`
   * (compared with {@link JournalEntry.endpoint}) or `/runs/:run_id` (with
   * {@link JournalEntry.route}). No API prefix (`/api/v2`, `/v1`); a secrets engine route on
   * another mount path: {@link mountedRoute}.
   */
  readonly route?: RouteName | RouteTemplate | MountedRoute | UserRouteName;
  /** Operation name (`apply run`; secrets: `read`, `list`, `create-or-update`, `delete`). */
  readonly operation?: OperationName;
  /** Method, compared as sent (case-sensitive, as the services compare it). */
  readonly method?: string;
  /** Status: a number, a class such as `"4xx"`, or a predicate. */
  readonly status?: number | `${1 | 2 | 3 | 4 | 5}xx` | ((status: number) => boolean);
  /** Answered at or after this instant (ms since the epoch, a Date or an ISO string). */
  readonly since?: Instant;
  /** Answered at or before this instant. */
  readonly until?: Instant;
  /** Only entries that matched a real endpoint (`true`), or only those that did not (`false`). */
  readonly matched?: boolean;
  /** Id of the fault applied (`doubles.faults`). */
  readonly fault?: string;
}

/** Options of a {@link RequestJournal}. */
export interface JournalOptions {
  /** Entries kept; the oldest go first beyond it (default {@link DEFAULT_JOURNAL_LIMIT}; 0 keeps none). */
  readonly limit?: number;
  /** Bytes kept of each body (default {@link DEFAULT_JOURNAL_BODY_BYTES}). */
  readonly maxBodyBytes?: number;
}

/**
 * The journal: a ring of at most `limit` entries, oldest first. Shared by every handler of one
 * doubles object (nock's, each server's), so it lists requests from every transport.
 * @example
 * const journal = new RequestJournal({ limit: 100 });
 * journal.filter({ service: "runs", route: "POST /runs", status: 201 }).length;
 * console.log(journal.format({ status: "4xx" }));
 */
export class RequestJournal implements Iterable<JournalEntry> {
  /** Entries kept at most. */
  readonly limit: number;
  /** Bytes kept of each body. */
  readonly maxBodyBytes: number;
  private readonly ring: (JournalEntry | undefined)[] = [];
  /** Index of the oldest entry in `ring` once it is full. */
  private head = 0;
  private seq = 0;
  /** The names filters are checked against (set by the doubles; none: not checked). */
  private vocabulary: Vocabulary | undefined;
  /**
   * @internal Handed every journalled request whole (bytes as received, the answer untruncated),
   * whatever the limits: the doubles' replay-bundle recorder (src/scenarios/bundles/recorder.ts).
   */
  tap: ((request: SimRequest, response: SimResponse, startedAt: number, at: number) => void) | undefined;

  /**
   * @throws {UsageError} for a limit that is not a non-negative integer.
   */
  constructor(options: JournalOptions = {}) {
    this.limit = checkCount("journal.limit", options.limit ?? DEFAULT_JOURNAL_LIMIT);
    this.maxBodyBytes = checkCount("journal.maxBodyBytes", options.maxBodyBytes ?? DEFAULT_JOURNAL_BODY_BYTES);
  }

  /** @internal The doubles hand their journal the names its filters may use. */
  useVocabulary(vocabulary: Vocabulary): void {
    this.vocabulary = vocabulary;
  }

  /**
   * The predicate of a {@link JournalFilter}, its service, route and operation checked against
   * the doubles' names.
   * @throws {UsageError} for an unknown field, service, route or operation, a bad status class or
   *   a bad instant.
   */
  matcher(filter: JournalFilter): (entry: JournalEntry) => boolean {
    return matcherOf(filter, this.vocabulary, () => this.entries);
  }

  /** @internal Appends one entry (dropping the oldest beyond the limit); the transports record, users read. */
  record(record: JournalRecord): void {
    this.seq++;
    if (this.limit === 0) return;
    const entry = new JournalEntry(this.seq, record);
    if (this.ring.length < this.limit) {
      this.ring.push(entry);
      return;
    }
    this.ring[this.head] = entry;
    this.head = (this.head + 1) % this.limit;
  }

  /** Entries kept now. */
  get size(): number {
    return this.ring.length;
  }

  /** Every kept entry, oldest first (a copy). */
  get entries(): JournalEntry[] {
    const ring = this.ring as JournalEntry[];
    return this.head === 0 ? ring.slice() : [...ring.slice(this.head), ...ring.slice(0, this.head)];
  }

  [Symbol.iterator](): Iterator<JournalEntry> {
    return this.entries[Symbol.iterator]();
  }

  /** The newest entry (matching `filter`, when given). */
  last(filter?: JournalFilter): JournalEntry | undefined {
    const entries = filter === undefined ? this.entries : this.filter(filter);
    return entries.at(-1);
  }

  /**
   * The entries matching every field of `filter`, oldest first.
   * @throws {UsageError} for an unknown filter field or a bad instant.
   * @example doubles.journal.filter({ service: "runs", method: "POST", status: "2xx" })
   */
  filter(filter: JournalFilter = {}): JournalEntry[] {
    return this.entries.filter(this.matcher(filter));
  }

  /** How many entries match `filter`. */
  count(filter: JournalFilter = {}): number {
    return this.filter(filter).length;
  }

  /** Entries that matched no real endpoint (see {@link JournalEntry.matched}). */
  unmatched(): JournalEntry[] {
    return this.filter({ matched: false });
  }

  /** Forgets every entry (the sequence numbers go on). */
  clear(): void {
    this.ring.length = 0;
    this.head = 0;
  }

  /**
   * The entries (all, those matching `filter`, or those given) as readable text, credentials
   * masked; see {@link formatJournal}.
   * @example console.log(doubles.journal.format({ service: "secrets" }));
   */
  format(filter?: JournalFilter | readonly JournalEntry[], options: FormatOptions = {}): string {
    const entries = Array.isArray(filter) ? (filter as readonly JournalEntry[]) : this.filter(filter as JournalFilter | undefined);
    return formatJournal(entries, options);
  }
}

const FILTER_KEYS = new Set(["service", "route", "operation", "method", "status", "since", "until", "matched", "fault"]);

/**
 * The predicate of a {@link JournalFilter}.
 * @param vocabulary - the names `service`, `route` and `operation` are checked against (none: not
 *   checked); a route or operation some entry of `entries` carries passes too (a mount since
 *   removed).
 * @throws {UsageError} for an unknown field, service, route or operation, a bad status class or a
 *   bad instant.
 */
export function matcherOf(filter: JournalFilter, vocabulary?: Vocabulary, entries?: () => readonly JournalEntry[]): (entry: JournalEntry) => boolean {
  for (const key of Object.keys(filter)) {
    if (!FILTER_KEYS.has(key)) {
      const near = nearestName(key, [...FILTER_KEYS]);
      throw new UsageError(`journal filter: unknown field "${key}"${near === undefined ? "" : ` (did you mean "${near}"?)`}; fields: ${[...FILTER_KEYS].join(", ")}`);
    }
  }
  const tests: ((entry: JournalEntry) => boolean)[] = [];
  const { service, route, operation, method, status, since, until, matched, fault } = filter;
  if (vocabulary !== undefined) checkNames(filter, vocabulary, entries);
  if (service !== undefined) tests.push((e) => e.service === service);
  if (route !== undefined) {
    const { method: routeMethod, template } = splitRoute(route);
    const name = routeMethod === undefined ? undefined : `${routeMethod} ${template}`;
    tests.push(name === undefined ? (e) => e.route === template : (e) => e.endpoint === name);
  }
  if (operation !== undefined) tests.push((e) => e.operation === operation);
  if (method !== undefined) tests.push((e) => e.method === method);
  if (status !== undefined) tests.push(statusTest(status));
  if (since !== undefined) {
    const from = instant("since", since);
    tests.push((e) => e.at >= from);
  }
  if (until !== undefined) {
    const to = instant("until", until);
    tests.push((e) => e.at <= to);
  }
  if (matched !== undefined) tests.push((e) => e.matched === matched);
  if (fault !== undefined) tests.push((e) => e.fault === fault);
  return (entry) => tests.every((test) => test(entry));
}

/** Refuses a service, route or operation the doubles do not have, naming the nearest valid one. */
function checkNames(filter: JournalFilter, vocabulary: Vocabulary, entries: (() => readonly JournalEntry[]) | undefined): void {
  const { service, route, operation } = filter;
  for (const [field, value] of [["service", service], ["route", route], ["operation", operation]] as const) {
    if (value !== undefined && typeof value !== "string") throw new UsageError(`journal filter: "${field}" must be a string, not ${JSON.stringify(value)}`);
  }
  if (service !== undefined) {
    const problem = vocabulary.checkService(service);
    if (problem !== undefined) throw new UsageError(`journal filter: ${problem}`);
  }
  const key = service !== undefined ? service : undefined;
  if (route !== undefined) {
    const { method, template } = splitRoute(route);
    const seen = (): boolean => (entries?.() ?? []).some((e) => (method === undefined ? e.route === template : e.endpoint === `${method} ${template}`));
    const problem = vocabulary.checkRoute(method === undefined ? template : `${method} ${template}`, key);
    if (problem !== undefined && !seen()) throw new UsageError(`journal filter: ${key === undefined ? "" : `the ${key} service has `}${problem}`);
  }
  if (operation !== undefined) {
    const problem = vocabulary.checkOperation(operation, key);
    if (problem !== undefined && !(entries?.() ?? []).some((e) => e.operation === operation)) throw new UsageError(`journal filter: ${key === undefined ? "" : `the ${key} service has `}${problem}`);
  }
}

function statusTest(status: NonNullable<JournalFilter["status"]>): (entry: JournalEntry) => boolean {
  if (typeof status === "function") return (e) => status(e.status);
  if (typeof status === "number") return (e) => e.status === status;
  const match = /^([1-5])xx$/i.exec(String(status));
  if (match === null) throw new UsageError(`journal filter: status must be a number, "2xx".."5xx" or a function, not ${JSON.stringify(status)}`);
  const hundreds = Number(match[1]);
  return (e) => Math.floor(e.status / 100) === hundreds;
}

function instant(name: string, value: Instant): number {
  try {
    return toEpochMs(value);
  } catch {
    throw new UsageError(`journal filter: "${name}" must be ms since the epoch, a Date or an ISO 8601 string, not ${JSON.stringify(value)}`);
  }
}

function checkCount(name: string, value: number): number {
  if (!Number.isSafeInteger(value) || value < 0) throw new UsageError(`${name} must be a whole number of 0 or more, not ${String(value)}`);
  return value;
}

/** Options of {@link formatJournal}. */
export interface FormatOptions {
  /** Show credentials unmasked (default false). */
  readonly reveal?: boolean;
  /** Leave out headers (default false: shown). */
  readonly headers?: boolean;
  /** Longest body printed, in characters (default 500; the rest is elided). */
  readonly maxBodyChars?: number;
}

/**
 * Entries as readable text, one block per entry: time, service, `METHOD URL -> status`, route and
 * operation, fault, then the request and response headers and bodies, credentials masked.
 * @example
 * formatJournal(doubles.journal.entries)
 * // #1 2024-01-01T00:00:00.000Z runs POST https://app.run-orchestration.test/api/v2/runs -> 201 (create run, POST /runs, 0 ms)
 * //   > authorization: ***
 * //   > {"data":{"type":"runs",...}}
 * //   < content-type: application/vnd.api+json
 * //   < {"data":{"id":"run-...",...}}
 */
export function formatJournal(entries: Iterable<JournalEntry>, options: FormatOptions = {}): string {
  const blocks = [...entries].map((entry) => formatEntry(entry, options.reveal ?? false, options));
  return blocks.length === 0 ? "(no requests)" : blocks.join("\n");
}

function formatEntry(entry: JournalEntry, reveal: boolean, options: FormatOptions = {}): string {
  const showHeaders = options.headers ?? true;
  const maxBody = options.maxBodyChars ?? 500;
  const what = [entry.operation, entry.endpoint ?? "no route matched", `${entry.durationMs} ms`].filter(Boolean).join(", ");
  const lines = [
    `#${entry.seq} ${isoMillis(entry.at)} ${entry.service ?? "(no service)"} ${entry.method} ${reveal ? entry.url : maskUrl(entry.url)} -> ${entry.status} (${what})`,
  ];
  if (entry.answeredBy !== undefined) lines.push(`  answered by: ${entry.answeredBy}`);
  if (entry.fault !== undefined) lines.push(`  fault: ${entry.fault}`);
  if (entry.nearest !== undefined) lines.push(`  nearest: ${entry.nearest.join("; ")}`);
  const headerLines = (prefix: string, headers: Readonly<Record<string, string>>): void => {
    if (!showHeaders) return;
    for (const [name, value] of Object.entries(reveal ? headers : maskHeaders(headers))) lines.push(`  ${prefix} ${name}: ${value}`);
  };
  const bodyLine = (prefix: string, body: JournalBody): void => {
    const shown = body.show(reveal);
    if (shown !== "") lines.push(`  ${prefix} ${shown.length > maxBody ? `${shown.slice(0, maxBody)}... (${shown.length} characters)` : shown}`);
  };
  headerLines(">", entry.headers);
  bodyLine(">", entry.requestBody);
  headerLines("<", entry.responseHeaders);
  bodyLine("<", entry.responseBody);
  if (entry.error !== undefined) lines.push(`  error: ${entry.error.split("\n")[0] ?? ""}`);
  return lines.join("\n");
}

/**
 * An entry as `GET /_sim/journal` answers it: times, service, method, URL, route, operation,
 * status, fault, request and response headers and bodies (text, or base64 for bytes), credentials
 * masked unless `reveal`.
 */
export function journalWire(entry: JournalEntry, reveal: boolean): Record<string, unknown> {
  const body = (b: JournalBody): Record<string, unknown> => {
    const text = b.text();
    const parsed = reveal || text === undefined ? undefined : b.json();
    const shown = text === undefined ? { base64: Buffer.from(b.bytes).toString("base64") } : { text: parsed === undefined ? text : JSON.stringify(maskJson(parsed)) };
    return { ...shown, size: b.length, truncated: b.truncated };
  };
  return {
    seq: entry.seq,
    at: isoMillis(entry.at),
    epochMs: entry.at,
    durationMs: entry.durationMs,
    service: entry.service ?? null,
    method: entry.method,
    url: reveal ? entry.url : maskUrl(entry.url),
    route: entry.route ?? null,
    operation: entry.operation ?? null,
    status: entry.status,
    ...(entry.fault === undefined ? {} : { fault: entry.fault }),
    ...(entry.answeredBy === undefined ? {} : { answeredBy: entry.answeredBy }),
    headers: reveal ? entry.headers : maskHeaders(entry.headers),
    requestBody: body(entry.requestBody),
    responseHeaders: reveal ? entry.responseHeaders : maskHeaders(entry.responseHeaders),
    responseBody: body(entry.responseBody),
    ...(entry.nearest === undefined ? {} : { nearest: entry.nearest }),
    ...(entry.configurationFiles === undefined ? {} : { configurationFiles: entry.configurationFiles }),
  };
}
