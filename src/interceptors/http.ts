/**
 * Transport-free HTTP: the request and response shapes every transport (nock, the node:http
 * server, a direct call) converts to and from, and the per-service plug-in contract.
 */
import { setOwn } from "../simulator/kernel/dict.js";
import type { DomainErrorCode } from "../simulator/kernel/errors.js";
import type { Simulator } from "../simulator/kernel/simulator.js";
import type { FaultAnswer } from "./faults.js";
import type { SimRequest, SimResponse } from "./message.js";

export type { SimRequest, SimResponse } from "./message.js";

/**
 * A service's request body limit: bodies longer than `maxBytes` are answered `tooLarge` (the real
 * service's 413, or its answer to an unreadable body) without reaching any route, and transports
 * stop reading at the limit.
 */
export interface RequestBodyLimit {
  /** The longest body accepted, in bytes (a body of exactly this length passes). */
  readonly maxBytes: number;
  /** The service's own answer to a longer body. */
  tooLarge(request: SimRequest): SimResponse;
}

/** What a route handler receives. */
export interface RouteContext {
  readonly sim: Simulator;
  readonly request: SimRequest;
  /** Path parameters, percent-decoded. */
  readonly params: Readonly<Record<string, string>>;
  readonly query: URLSearchParams;
  /** The mount: base URLs of this service as seen by the client (for links, upload URLs). */
  readonly mount: ServiceMount;
  /** The path relative to the base that matched (starts with `/`). */
  readonly path: string;
  /**
   * Where a route that dispatches further (the secrets service's catch-all) names the endpoint it
   * reached, as in its {@link HttpService.endpoints} (e.g. `POST /ssh/sign/:name`), for coverage.
   * Absent when nothing observes.
   */
  readonly endpoint?: EndpointNote;
  /**
   * For a route that dispatches further (the secrets service's catch-all): names the route template
   * (relative to the base, e.g. `/sys/mounts/*path`) and operation it matched, for the journal.
   * `method` is the method the route's name carries when it is not the one sent (the secrets
   * service names a `PUT` write `POST /...` and a `GET ?list=true` `LIST /...`, as its spec does).
   * Absent when the route is called outside a handler.
   */
  readonly describe?: (route: string, operation?: string, method?: string) => void;
}

/** The route a request is for, as the journal names it (see {@link HttpService.routeOf}). */
export interface NamedRoute {
  /** The template relative to the base (`/ssh/creds/:name`). */
  readonly route: string;
  /** The operation (`create-or-update`). */
  readonly operation?: string;
  /** The method the route's name carries (`POST` for a `PUT` write). */
  readonly method: string;
}

/** The endpoint a request reached, named by the route that answered it (for coverage). */
export interface EndpointNote {
  label?: string;
}

/** One row of a service's route table. */
export interface Route {
  /**
   * Method or methods this row answers, matched case-sensitively (`delete` is not `DELETE`, as in
   * Go's net/http); `"*"` answers any method (a service's catch-all row).
   */
  readonly method: string | readonly string[];
  /**
   * Path relative to the base, with `:name` for one segment and `*name` for the rest of the path
   * (e.g. `/runs/:run_id/actions/apply`).
   */
  readonly path: string;
  /** Which of the service's bases the path is relative to (default `api`). */
  readonly base?: string;
  /**
   * The operation the row performs, in the spec's words (`apply run`, `create token`): faults
   * match it (`{ operation: "apply run" }`), and the journal reports it.
   */
  readonly operation?: string;
  /**
   * What the row takes and answers, in words, for listings such as `GET /_sim/` (control routes
   * describe themselves this way), e.g. `{ body: '{"by": "30s" | 30000}', answer: '{"now", "epochMs"}' }`.
   */
  readonly doc?: RouteDoc;
  readonly handler: (ctx: RouteContext) => SimResponse | Promise<SimResponse>;
}

/** A route's body and answer shapes, in words (see {@link Route.doc}). */
export interface RouteDoc {
  /** The request body's shape; absent: no body. */
  readonly body?: string;
  /** The answer's status and shape. */
  readonly answer?: string;
}

/**
 * What a route answers, as its spec documents it (FIDELITY.md where the spec is silent): the data
 * the wire-side service mutants are derived from (src/scenarios/mutants/wire-operators.ts). Kept
 * per endpoint label in {@link HttpService.answerTable}.
 * @example { success: [202], errors: ["conflict", "not_found"] } // POST /runs/:run_id/actions/cancel (spec: 202 / 409 / 404)
 */
export interface RouteAnswers {
  /** The statuses of the route's success answers (`[202]`; `[204, 200]` when the body is optional). */
  readonly success: readonly number[];
  /**
   * The route's other documented errors, as the domain error codes the service's own error
   * function turns into them (`conflict`: 409 for runs); empty when the spec documents none.
   */
  readonly errors: readonly DomainErrorCode[];
  /**
   * A JSON pointer (RFC 6901) to an array in the success body whose order the spec leaves
   * unspecified (`""`: the body itself; `/data/keys`). Absent: no list, or its order is specified.
   */
  readonly unorderedList?: string;
  /**
   * The optional members success answers carry as `null`, which a client may meet absent: the
   * member names the spec gives as "or null" (`["canceled-at", "target-addrs"]`; found at any
   * depth), or `true` when the answers carry `null` members the spec does not name one by one.
   */
  readonly nullFields?: boolean | readonly string[];
  /**
   * The route's own wording of a documented error, where it differs from the service's usual one
   * (`{ not_found: "Requested binding rule does not exist: ACL not found" }`; see the answers table's `messages`).
   */
  readonly messages?: Readonly<Partial<Record<DomainErrorCode, string>>>;
  /** The route's own title of a documented error, for services whose error bodies carry one (`{ conflict: "conflict" }`). */
  readonly titles?: Readonly<Partial<Record<DomainErrorCode, string>>>;
}

/**
 * A service's HTTP face: routes as data, and the one place that turns errors into its own error
 * responses.
 */
export interface HttpService {
  /** Service name, matching its simulator {@link ServiceDefinition}. */
  readonly name: string;
  readonly routes: readonly Route[];
  /** Turns a thrown error (a DomainError, usually) into the service's error response. */
  errorResponse(error: unknown, request: SimRequest): SimResponse;
  /**
   * The answer when a request reaches the service's base URL but matches no route.
   * @param nearest - the closest routes, as `METHOD /path` strings, for the error message.
   * @param methodMismatch - the path exists, but not for this method.
   */
  noRoute(request: SimRequest, nearest: readonly string[], methodMismatch: boolean): SimResponse;
  /**
   * The service's real endpoints as `METHOD /path` patterns relative to the `api` base (e.g.
   * `GET /runs/:run_id`), for naming the nearest ones when a request matches none. Default: the
   * route table without catch-all (`*rest`) rows. Services that route at run time (mounts) list
   * what exists now.
   */
  catalog?(sim: Simulator): readonly string[];
  /**
   * Every endpoint of the service as `METHOD /path` labels, the universe endpoint coverage counts
   * against (default: the route table's rows, see `endpointsOf`): route names as the specs write
   * them (`GET /runs/:run_id`; a row of another base by its own template, `PUT /v1/object/:token`).
   */
  endpoints?(): readonly string[];
  /**
   * For a service that routes inside a catch-all row: the endpoint label (one of
   * {@link HttpService.endpoints}) a request is for, from its method and its path relative to the
   * base, or undefined. Coverage asks it only for answers given before the service's routes ran
   * (a body over {@link HttpService.bodyLimit}).
   */
  endpointOf?(sim: Simulator, request: SimRequest, path: string): string | undefined;
  /**
   * For a service that routes inside a catch-all row: its route names as the specs write them
   * (`METHOD /template`, no API prefix; see `vocabulary.ts`), for checking the routes faults,
   * journal filters and matchers name. Without `sim`, the names at the spec's own mount paths;
   * with it, also those of what is mounted now. Default: the route table's rows.
   */
  routeNames?(sim?: Simulator): readonly string[];
  /** The operation names the service's routes carry, when its route table does not name them. */
  readonly operationNames?: readonly string[];
  /**
   * For a service that routes inside a catch-all row: the route a request is for, from its method
   * and path relative to the base (no token, node state or body read): what its routes would
   * {@link RouteContext.describe}. The handler asks it when a fault may answer instead of the
   * routes, so a faulted request is journalled with its route and a fault can name one.
   */
  routeOf?(sim: Simulator, request: SimRequest, path: string): NamedRoute | undefined;
  /**
   * `false` keeps this service's requests out of the journal (the `/_sim/` control API: polling
   * the journal must not fill it). Default `true`.
   */
  readonly journaled?: boolean;
  /** The service's request body limit (none: bodies of any length; see docs/decisions/security.md). */
  readonly bodyLimit?: RequestBodyLimit;
  /**
   * The service's own error answers a fault can give, by name (`rate-limited`, `sealed`,
   * `no-cluster-leader`, ...), built on its error writer so the bytes are the ones it answers
   * elsewhere.
   */
  readonly faultAnswers?: Readonly<Record<string, FaultAnswer>>;
  /**
   * What each route answers, by endpoint label (`POST /runs/:run_id/actions/apply`; see
   * {@link RouteAnswers}), every endpoint with a row, and the messages its documented errors are
   * rendered with. Service mutants are derived from it (src/interceptors/route-answers.ts).
   */
  readonly answerTable?: {
    readonly routes: Readonly<Record<string, RouteAnswers>>;
    readonly messages: Readonly<Partial<Record<DomainErrorCode, string>>>;
  };
}

/**
 * A service mounted at base URLs. `bases.api` is the API base (e.g.
 * `https://app.run-orchestration.test/api/v2`); services may own other bases (an archive host).
 */
export interface ServiceMount {
  readonly service: HttpService;
  /**
   * The service's key in the doubles (`runs`, `accessControl`, `secrets`): what the journal and
   * faults call it (default: {@link HttpService.name}).
   */
  readonly key?: string;
  readonly bases: Readonly<Record<string, string>>;
}

/**
 * The headers a transport sends for `response`: its own, plus a `Content-Length` whenever the
 * length is known and the status may carry one (the body's byte length, `0` for a response
 * without a body; none for 1xx, 204 and 304, which never have a body, nor when the service set
 * `Content-Length` or `Transfer-Encoding` itself). Go's net/http, which the real services run
 * on, sends these small answers the same way rather than chunked.
 * @param body - the body as the transport will send it (bytes, or its byte length), `undefined` for none.
 * @example withContentLength({ status: 202, headers: {} }, undefined) // { "content-length": "0" }
 */
export function withContentLength(response: SimResponse, body: Uint8Array | number | undefined): Record<string, string> {
  // Copied key by key: a spread copy takes about 1 us more to grow by one key (V8 gives it a map
  // that no added key can follow, measured on Node 20), and this runs for every answer.
  const headers: Record<string, string> = {};
  let framed = false;
  for (const name in response.headers) {
    if (!Object.hasOwn(response.headers, name)) continue;
    setOwn(headers, name, response.headers[name] as string);
    const lower = name.toLowerCase();
    if (lower === "content-length" || lower === "transfer-encoding") framed = true;
  }
  if (framed) return headers;
  if (response.status < 200 || response.status === 204 || response.status === 304) return headers;
  headers["content-length"] = String(typeof body === "number" ? body : (body?.length ?? 0));
  return headers;
}

/**
 * JSON response helper.
 * @example json(201, { id: "thing-1" }) // { status: 201, headers: { "content-type": "application/json" }, body: '{"id":"thing-1"}' }
 */
export function json(status: number, value: unknown, contentType = "application/json"): SimResponse {
  return { status, headers: { "content-type": contentType }, body: JSON.stringify(value) };
}

/**
 * Empty response helper.
 * @example empty(204) // { status: 204, headers: {} }: no body
 */
export function empty(status: number, headers: Record<string, string> = {}): SimResponse {
  return { status, headers };
}

/**
 * The request body as UTF-8 text.
 * @example JSON.parse(bodyText(request))
 */
export function bodyText(request: SimRequest): string {
  return new TextDecoder().decode(request.body);
}
