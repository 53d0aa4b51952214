/**
 * User routes and passthrough on the wire side: the table of routes users add to a service
 * (`doubles.secrets.route("GET", "/secret/data/:path", handler)`), how a request is handed to one
 * and how its answer becomes the service's response, and what the handler pipeline asks for a
 * request the service does not simulate ({@link AnswerFallback}): a user route, else a
 * passthrough, else the service's own 404.
 *
 * Implements DESIGN.md "User routes and passthrough"; see docs/decisions/user-routes-and-passthrough.md.
 */
import { DomainError, UsageError } from "../simulator/kernel/errors.js";
import type { SimRequest, SimResponse } from "./message.js";
import type { PassthroughTarget } from "./passthrough.js";
import { matchPath } from "./router.js";

/** What a user route's wire handler receives. */
export interface UserRouteCall {
  readonly request: SimRequest;
  /** Path parameters of the template, percent-decoded. */
  readonly params: Readonly<Record<string, string>>;
  /** The request's path relative to the service's base (`/secret/data/app`). */
  readonly path: string;
}

/** One user route of one service. */
export interface UserRouteEntry {
  /** The service's key (`secrets`). */
  readonly key: string;
  /** Upper-case method (`GET`). */
  readonly method: string;
  /** Path template relative to the service's base, no API prefix (`/secret/data/:path`). */
  readonly template: string;
  /**
   * Answers one request (the scenarios layer wraps the user's function with the world): a
   * {@link UserRouteAnswer}, checked and converted into the service's response by the handler.
   */
  answer(call: UserRouteCall): Promise<unknown>;
}

/** A user route that matched a request. */
export interface UserRouteMatch {
  readonly entry: UserRouteEntry;
  readonly params: Readonly<Record<string, string>>;
}

/**
 * What the handler asks about a request no route of its service simulates (see `handler.ts`):
 * the user routes and passthrough targets of the doubles.
 */
export interface AnswerFallback {
  /** Whether any user route or passthrough target exists (the handler asks nothing when none does). */
  readonly active: boolean;
  /** The user route of service `key` for `method` and `path` (relative to the service's base). */
  userRoute(key: string, method: string, path: string): UserRouteMatch | undefined;
  /** Where service `key`'s unsimulated requests are forwarded, if anywhere. */
  passthrough(key: string): PassthroughTarget | undefined;
}

/** The user routes of one doubles object, per service key, in the order they were added. */
export class UserRouteTable {
  private readonly byKey = new Map<string, UserRouteEntry[]>();

  /** How many user routes there are, over every service. */
  get size(): number {
    let n = 0;
    for (const list of this.byKey.values()) n += list.length;
    return n;
  }

  /**
   * Adds a route.
   * @returns removes it (calling twice is harmless).
   * @throws {UsageError} when the service already has a user route with that method and template.
   */
  add(entry: UserRouteEntry): () => void {
    const list = this.byKey.get(entry.key) ?? [];
    if (list.some((e) => e.method === entry.method && e.template === entry.template)) {
      throw new UsageError(`route: the ${entry.key} service already has a user route "${entry.method} ${entry.template}" (remove it first)`);
    }
    list.push(entry);
    this.byKey.set(entry.key, list);
    return () => {
      const at = list.indexOf(entry);
      if (at >= 0) list.splice(at, 1);
    };
  }

  /** The names (`METHOD /template`) of service `key`'s user routes. */
  names(key: string): string[] {
    return (this.byKey.get(key) ?? []).map((e) => `${e.method} ${e.template}`);
  }

  /** The first user route of `key` answering `method` at `path`, with its parameters. */
  match(key: string, method: string, path: string): UserRouteMatch | undefined {
    for (const entry of this.byKey.get(key) ?? []) {
      if (entry.method !== method) continue;
      const params = matchPath(entry.template, path);
      if (params !== undefined) return { entry, params };
    }
    return undefined;
  }
}

/**
 * Checks a user route's method and template as the vocabulary writes routes: METHOD in upper case,
 * a path template starting with `/`, segments `:name` and a last `*name`, no query.
 * @throws {UsageError} naming what is wrong and the expected form.
 * @example checkUserRoute("secrets", "GET", "/secret/data/:path") // passes
 */
export function checkUserRoute(key: string, method: unknown, template: unknown): void {
  const form = 'e.g. route("GET", "/secret/data/:path", handler): METHOD in upper case, the path template without the API prefix';
  if (typeof method !== "string" || !/^[A-Z][A-Z0-9-]*$/.test(method)) throw new UsageError(`${key}.route: method must be an upper-case HTTP method, not ${JSON.stringify(method)}; ${form}`);
  if (typeof template !== "string" || !template.startsWith("/") || /[?#\s]/.test(template)) {
    throw new UsageError(`${key}.route: the template must be a path starting with "/" (no query, no spaces), not ${JSON.stringify(template)}; ${form}`);
  }
  const segments = template.split("/").filter(Boolean);
  segments.forEach((segment, index) => {
    if ((segment.startsWith(":") || segment.startsWith("*")) && segment.length === 1) throw new UsageError(`${key}.route: parameter segments need a name ("/:name", "/*rest") in ${JSON.stringify(template)}`);
    if (segment.startsWith("*") && index !== segments.length - 1) throw new UsageError(`${key}.route: a "*${segment.slice(1)}" segment must be the last one in ${JSON.stringify(template)}`);
  });
}

/**
 * The answer a user route gives, as a user writes it: `status` (default 200), `headers`, `body`
 * (an object, array, number, boolean or null is sent as JSON with `content-type:
 * application/json` unless a content type is given; a string as text; bytes as they are;
 * absent: no body).
 */
export interface UserRouteAnswer {
  readonly status?: number;
  readonly headers?: Readonly<Record<string, string>>;
  readonly body?: unknown;
}

/**
 * A user route's answer as the fake's response.
 * @throws {TypeError} for an answer that is not an object, a status outside 100-599, a header
 *   value that is not a string, or a body that cannot be JSON (a function, a cycle).
 * @example toSimResponse({ body: { data: { a: 1 } } }) // { status: 200, headers: { "content-type": "application/json" }, body: '{"data":{"a":1}}' }
 */
export function toSimResponse(answer: unknown): SimResponse {
  if (typeof answer !== "object" || answer === null || Array.isArray(answer)) throw new TypeError(`a user route returns { status?, headers?, body? }, not ${answer === null ? "null" : Array.isArray(answer) ? "an array" : typeof answer}`);
  const { status = 200, headers = {}, body } = answer as UserRouteAnswer;
  if (typeof status !== "number" || !Number.isInteger(status) || status < 100 || status > 599) throw new TypeError(`a user route's status must be an integer from 100 to 599, not ${JSON.stringify(status)}`);
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) {
    if (typeof value !== "string") throw new TypeError(`a user route's header "${name}" must be a string, not ${typeof value}`);
    out[name.toLowerCase()] = value;
  }
  if (body === undefined) return { status, headers: out };
  if (typeof body === "string") return { status, headers: { "content-type": "text/plain; charset=utf-8", ...out }, body };
  if (body instanceof Uint8Array) return { status, headers: out, body };
  if (typeof body === "function" || typeof body === "symbol" || typeof body === "bigint") throw new TypeError(`a user route's body must be JSON, text or bytes, not a ${typeof body}`);
  const text = JSON.stringify(body);
  return { status, headers: { "content-type": "application/json", ...out }, body: text };
}

/**
 * The request body as a user route sees it: JSON parsed when it is JSON (by its content type, or
 * when it starts with `{` or `[`), else the text; `undefined` when empty.
 * @example parsedBody({ ..., headers: { "content-type": "application/json" }, body: bytes('{"a":1}') }) // { a: 1 }
 */
export function parsedBody(request: SimRequest): unknown {
  if (request.body.length === 0) return undefined;
  const text = new TextDecoder().decode(request.body);
  const type = request.headers["content-type"] ?? "";
  const trimmed = text.trimStart();
  if (/json/i.test(type) || trimmed.startsWith("{") || trimmed.startsWith("[")) {
    try {
      return JSON.parse(text) as unknown;
    } catch {
      return text;
    }
  }
  return text;
}

/**
 * The error a throwing user route is answered with: the service's own 500 (its error writer turns
 * it into its shape), naming the route and the error's first line, never its stack.
 * @example userRouteFailure("secrets", "GET /secret/data/:path", new Error("boom")).detail // 'infra-doubles: user route "GET /secret/data/:path" threw Error: boom (stack trace in the journal)'
 */
export function userRouteFailure(service: string, name: string, error: unknown): DomainError {
  const kind = error instanceof Error ? error.name : "Error";
  const message = (error instanceof Error ? error.message : String(error)).split("\n")[0]?.slice(0, 200) ?? "";
  return new DomainError({
    code: "internal",
    service,
    operation: "user route",
    message: `infra-doubles: user route "${name}" threw ${kind}: ${message} (stack trace in the journal)`,
    status: 500,
  });
}

/**
 * The error a failed passthrough is answered with: the service's own error shape, status 502.
 * @example passthroughFailure("secrets", "passthrough to http://127.0.0.1:8200 failed: ECONNREFUSED").status // 502
 */
export function passthroughFailure(service: string, message: string): DomainError {
  return new DomainError({ code: "internal", service, operation: "passthrough", message: `infra-doubles: ${message}`, title: "bad gateway", status: 502 });
}
