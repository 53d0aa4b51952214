/**
 * Origins owned by a live in-process transport, and the guard that keeps every node:http request
 * to them in process, whatever its request target.
 *
 * The in-process transports (nock 14 and anything else built on @mswjs/interceptors) see a
 * node:http request through a mock socket that rebuilds its URL as
 * `new URL(requestTarget, connectionOrigin)`. That URL is wrong for targets a client may
 * legitimately send to the server it connected to: `//v1/sys/health` is read as the host `v1`,
 * an absolute-form target (`GET http://elsewhere.example/v1/x`) as another host, and a URL string
 * whose host the options override (`http.request("http://x/", { host, port })`) as the URL's host.
 * Such a request matches no interceptor and is passed through to the real network, headers and
 * token included, to the host the connection goes to.
 *
 * The guard sits where every copy and every user of @mswjs/interceptors meets node:http:
 * `ClientRequest.prototype.onSocket` (through `client-request-hooks.ts`). When a request gets a mock socket whose connection (the
 * client's own protocol, host and port, as Node connects) goes to an owned origin, the socket's
 * parser is handed the request target as an absolute URL on that origin: the request is then
 * matched on the origin it is really sent to, and its path stays the path the client sent
 * (`//v1/sys/health` stays a path, as on the local server). Hosts compare as DNS does: case
 * insensitive, a trailing dot ignored; IPv6 and IPv4 literals in their canonical form.
 *
 * Installed while at least one origin is held (reference counted) and removed after the last
 * release, so nothing stays patched once every transport has stopped.
 */
import { createRequire } from "node:module";
import { addSocketHook } from "./client-request-hooks.js";
import { foldRequestHeaderLines } from "./header-values.js";

interface MockSocketLike {
  requestParser: Record<number, unknown>;
  connectionOptions: { host?: unknown; hostname?: unknown; port?: unknown };
  passthrough: unknown;
  respondWith?: (response: Response) => Promise<void>;
}

/**
 * The local server's answer to a request head beyond node:http's limit (16 KiB by default): status
 * line and `Connection: close`, no body, exactly as node:http writes it.
 */
function headTooLarge(): Response {
  return new Response(null, { status: 431, statusText: "Request Header Fields Too Large", headers: { connection: "close" } });
}

type HeadersComplete = (...args: unknown[]) => unknown;

const require = createRequire(import.meta.url);
const GUARDED = Symbol.for("infra-doubles.owned-origins.guarded");

/** Held origins (canonical form) with how many holders each. */
const held = new Map<string, number>();
let uninstall: (() => void) | undefined;

/**
 * The canonical form of an origin: lower-case scheme and host, no trailing dot, no default port.
 * @returns `undefined` when `origin` is not a URL origin.
 * @example canonicalOrigin("HTTPS://Secrets.Test.:443") // "https://secrets.test"
 */
export function canonicalOrigin(origin: string): string | undefined {
  // Parsed once per process for each origin: every intercept() canonicalises its origins.
  if (canonicalForms.has(origin)) return canonicalForms.get(origin);
  const canonical = parseCanonicalOrigin(origin);
  if (canonicalForms.size >= CANONICAL_FORMS_KEPT) canonicalForms.clear();
  canonicalForms.set(origin, canonical);
  return canonical;
}

/** Canonical forms worked out so far, by origin as given. */
const canonicalForms = new Map<string, string | undefined>();
const CANONICAL_FORMS_KEPT = 1024;

function parseCanonicalOrigin(origin: string): string | undefined {
  let url: URL;
  try {
    url = new URL(origin);
  } catch {
    return undefined;
  }
  if (url.host === "") return undefined;
  const host = url.hostname.endsWith(".") ? url.hostname.slice(0, -1) : url.hostname;
  return `${url.protocol}//${host}${url.port === "" ? "" : `:${url.port}`}`;
}

/**
 * Keeps every node:http request to `origins` in process until the returned function is called
 * (see the module comment). Reference counted; releasing twice is harmless.
 * @param origins - origins as `https://host[:port]`.
 * @returns the release function.
 * @example
 * const release = holdOwnedOrigins(["https://secrets.test"]);
 * // http.request("https://secrets.test//v1/sys/health") is matched on https://secrets.test
 * release();
 */
export function holdOwnedOrigins(origins: readonly string[]): () => void {
  const mine = [...new Set(origins.map(canonicalOrigin).filter((o): o is string => o !== undefined))];
  for (const origin of mine) held.set(origin, (held.get(origin) ?? 0) + 1);
  if (held.size > 0 && uninstall === undefined) uninstall = install();
  let released = false;
  return () => {
    if (released) return;
    released = true;
    for (const origin of mine) {
      const count = (held.get(origin) ?? 1) - 1;
      if (count <= 0) held.delete(origin);
      else held.set(origin, count);
    }
    if (held.size === 0) {
      uninstall?.();
      uninstall = undefined;
    }
  };
}

/**
 * Whether `origin` is held by a live transport (compared in canonical form).
 * @example isOwnedOrigin("https://Secrets.Test.") // true while the doubles' secrets origin is held
 */
export function isOwnedOrigin(origin: string): boolean {
  const canonical = canonicalOrigin(origin);
  return canonical !== undefined && held.has(canonical);
}

/** Whether the node:http guard is installed right now (for tests). */
export function ownedOriginGuardInstalled(): boolean {
  return uninstall !== undefined;
}

let headersCompleteSlot: number | undefined;

function install(): () => void {
  // node:_http_common's slot number, read once per process (the guard installs anew after each last release).
  headersCompleteSlot ??= (require("node:_http_common") as { HTTPParser: { kOnHeadersComplete: number } }).HTTPParser.kOnHeadersComplete;
  const slot = headersCompleteSlot;
  return addSocketHook((request, socket) => {
    if (isMockSocket(socket)) guard(socket, request.protocol, slot);
  });
}

function isMockSocket(socket: unknown): socket is MockSocketLike {
  if (typeof socket !== "object" || socket === null) return false;
  const candidate = socket as Partial<MockSocketLike>;
  return (
    typeof candidate.passthrough === "function" &&
    typeof candidate.requestParser === "object" &&
    candidate.requestParser !== null &&
    typeof candidate.connectionOptions === "object" &&
    candidate.connectionOptions !== null
  );
}

/** The origin the socket really connects to, canonical; `undefined` when it cannot be told. */
function connectionOrigin(socket: MockSocketLike, protocol: string | undefined): string | undefined {
  const options = socket.connectionOptions;
  const rawHost = typeof options.host === "string" && options.host !== "" ? options.host : options.hostname;
  if (typeof rawHost !== "string" || rawHost === "") return undefined;
  const scheme = protocol === "https:" ? "https:" : protocol === "http:" ? "http:" : undefined;
  if (scheme === undefined) return undefined;
  const host = rawHost.includes(":") && !rawHost.startsWith("[") ? `[${rawHost}]` : rawHost;
  const port = typeof options.port === "number" || typeof options.port === "string" ? `:${String(options.port)}` : "";
  return canonicalOrigin(`${scheme}//${host}${port}`);
}

/**
 * When the socket connects to an owned origin, its parser reports the request target as an
 * absolute URL on that origin (origin-form targets keep their exact path; absolute-form targets
 * keep their path and query, as the server they are sent to would read them).
 */
function guard(socket: MockSocketLike, protocol: string | undefined, slot: number): void {
  const origin = connectionOrigin(socket, protocol);
  if (origin === undefined || !held.has(origin)) return;
  const parser = socket.requestParser as Record<number | symbol, unknown>;
  if (parser[GUARDED] === true) return;
  const onHeadersComplete = parser[slot];
  if (typeof onHeadersComplete !== "function") return;
  parser[GUARDED] = true;
  let headComplete = false;
  parser[slot] = function (this: unknown, ...args: unknown[]): unknown {
    headComplete = true;
    // (versionMajor, versionMinor, headers, method, url, ...)
    const target = args[4];
    if (typeof target === "string") args[4] = `${origin}${pathOf(target)}`;
    // Repeated header lines are read as the local server's node:http reads them (header-values.ts).
    const lines = args[2];
    const buffered = (socket as { requestRawHeadersBuffer?: unknown }).requestRawHeadersBuffer;
    if (Array.isArray(lines)) {
      const earlier = Array.isArray(buffered) ? (buffered.splice(0) as string[]) : [];
      args[2] = foldRequestHeaderLines([...earlier, ...(lines as string[])]);
    }
    return (onHeadersComplete as HeadersComplete).apply(this, args);
  };
  answerOversizedHeads(socket, origin, () => headComplete);
}

/**
 * The mock socket's parser refuses a request head beyond node:http's header limit, and the
 * interceptor then never emits the request: the client waits forever. Such a request gets the
 * local server's answer instead (431, see {@link headTooLarge}), once.
 */
function answerOversizedHeads(socket: MockSocketLike, origin: string, headComplete: () => boolean): void {
  const parser = socket.requestParser as unknown as { execute?: (chunk: Buffer, ...rest: unknown[]) => unknown };
  const execute = parser.execute;
  const respondWith = socket.respondWith;
  if (typeof execute !== "function" || typeof respondWith !== "function") return;
  let answered = false;
  parser.execute = function (this: unknown, chunk: Buffer, ...rest: unknown[]): unknown {
    const result = execute.call(this, chunk, ...rest);
    if (!answered && !headComplete() && result instanceof Error && (result as { code?: unknown }).code === "HPE_HEADER_OVERFLOW") {
      answered = true;
      // The interceptor reads its answers back against the request it emitted; this one never
      // was, so it gets a stand-in on the same origin.
      if (Reflect.get(socket, "request") === undefined) Reflect.set(socket, "request", new Request(`${origin}/`));
      void respondWith.call(socket, headTooLarge()).catch(() => undefined);
    }
    return result;
  };
}

/** The path and query of a request target (`/` for an asterisk-form or unreadable target). */
function pathOf(target: string): string {
  if (target.startsWith("/")) return target;
  if (/^[a-z][a-z0-9+.-]*:\/\//i.test(target)) {
    try {
      const absolute = new URL(target);
      return `${absolute.pathname}${absolute.search}`;
    } catch {
      return "/";
    }
  }
  return "/";
}
