/**
 * User routes, the public side: the types of `doubles.<service>.route(method, template, handler)`
 * (a route of your own for what no spec covers, answered after the service's own routes and
 * before its 404, on every transport and the server) and of the `passthrough` option.
 *
 * Implements DESIGN.md "User routes and passthrough"; see
 * docs/guides/adopt-the-fake-before-every-call-is-simulated.md and
 * docs/decisions/user-routes-and-passthrough.md.
 */
import type { PassthroughTarget } from "../interceptors/passthrough.js";
import type { UserRouteAnswer } from "../interceptors/user-routes.js";

export type { UserRouteAnswer } from "../interceptors/user-routes.js";
export type { PassthroughTarget } from "../interceptors/passthrough.js";

/**
 * The parameters of a path template, by name: `:name` segments and a last `*rest` segment.
 * @example type P = PathParams<"/secret/data/:mount/*path">; // { mount: string; path: string }
 */
export type PathParams<T extends string> = string extends T
  ? Record<string, string>
  : { readonly [K in ParamNames<T>]: string };

/**
 * The parameter names of a path template (`"mount" | "path"` of `/secret/:mount/*path`).
 * @example type N = ParamNames<"/secret/data/:path">; // "path"
 */
export type ParamNames<T extends string> = T extends `${infer Head}/${infer Rest}` ? ParamName<Head> | ParamNames<Rest> : ParamName<T>;

/**
 * The parameter name of one template segment (`:name`, `*name`), or `never`.
 * @example type N = ParamName<":path">; // "path"
 */
export type ParamName<S extends string> = S extends `:${infer Name}` ? Name : S extends `*${infer Name}` ? Name : never;

/** What a user route's handler receives about the request. */
export interface UserRouteRequest<Params = Record<string, string>> {
  /** The method as sent (`GET`). */
  readonly method: string;
  /** The full URL as sent. */
  readonly url: URL;
  /** The path relative to the service's base (`/secret/data/app`), no API prefix. */
  readonly path: string;
  /** The template's parameters, percent-decoded (`{ path: "app" }`). */
  readonly params: Params;
  readonly query: URLSearchParams;
  /** Header names in lower case. */
  readonly headers: Readonly<Record<string, string>>;
  /** The body: parsed JSON when it is JSON, else its text; `undefined` when empty. */
  readonly body: unknown;
  /** The exact body bytes. */
  readonly rawBody: Uint8Array;
}

/** What a user route's handler receives about the world it answers in. */
export interface UserRouteWorld {
  /** The service's key (`secrets`). */
  readonly service: string;
  /** Simulator time, ms since the epoch (the doubles' clock, after due moves fired). */
  readonly now: number;
  /** The same time as an ISO 8601 string (`2024-01-01T00:00:00.000Z`). */
  readonly time: string;
}

/**
 * A user route's handler: the request and the world in, the answer out (`{ status?, headers?,
 * body? }`, or a promise of it). A handler that throws is answered with the service's own 500
 * error shape (no stack trace in the body; the journal entry's `error` has it).
 */
export type UserRouteHandler<T extends string = string> = (request: UserRouteRequest<PathParams<T>>, world: UserRouteWorld) => UserRouteAnswer | Promise<UserRouteAnswer>;

import type { UserRouteName } from "../interceptors/vocabulary.js";

export type { UserRouteName } from "../interceptors/vocabulary.js";

/** A user route, as `route()` returns it. Dispose it (or `remove()`) to take it away. */
export interface UserRouteHandle extends Disposable {
  /** The service's key. */
  readonly service: string;
  /** `METHOD /template`, for faults, journal filters and matchers. */
  readonly name: UserRouteName;
  /** Removes the route (calling twice is harmless). */
  remove(): void;
}

/**
 * Adds user routes to one service: `doubles.secrets.route(...)`, `doubles.runs.route(...)`,
 * `doubles.accessControl.route(...)`.
 */
export interface UserRoutes {
  /**
   * Answers `method` requests to `template` (relative to the service's base, no API prefix) with
   * `handler`, when none of the service's own routes does: after its routes, before its 404, on
   * every transport (nock, `interceptors`, msw handlers) and the server of `doubles.listen()`.
   * Journalled with the template as route (`answeredBy: "user route"`), counted by coverage under
   * `userRoutes`, and faults apply to it as to any route (`{ service, route: handle.name }`).
   * Routes stay across `reset()`; remove them with the handle.
   * @param method - upper-case method (`GET`, `POST`, `LIST`).
   * @param template - path template: `:name` matches one segment, a last `*name` the rest.
   * @throws {UsageError} for a method not in upper case, a template not starting with `/` or
   *   starting with the service's API prefix (`/v1`, `/api/v2`), a route the service itself
   *   simulates (it would never be reached), or a second user route of the same name.
   * @example
   * using kv = doubles.secrets.route("GET", "/secret/data/:path", (request, world) => ({
   *   body: { data: { data: { password: "hunter2" }, metadata: { created_time: world.time } } },
   * }));
   * doubles.journal.count({ route: kv.name }); // requests it answered
   */
  route<T extends string>(method: string, template: T, handler: UserRouteHandler<T>): UserRouteHandle;
}

/**
 * Where a service's unsimulated requests go: a real server's URL (`"http://127.0.0.1:8200"`; its
 * path, when given, stands for the service's base path), or `{ url, timeoutMs }`.
 */
export type PassthroughOption = string | PassthroughTarget;
