/**
 * The wire side of faults: what the handler asks a fault source before a routed request reaches
 * its operation, what it gets back (a plan), and how each transport turns a dropped connection
 * into its own native failure. Which fault applies, when and how often is decided in
 * `src/scenarios/faults/`; the bytes of a service's own error answers come from each service's
 * `faultAnswers` table (built on its error writer), never from a fault definition.
 *
 * Implements DESIGN.md "Faults" (applied at one point in the handler pipeline).
 */
import { networkFailure } from "./transports/network-errors.js";
import type { Simulator } from "../simulator/kernel/simulator.js";
import type { SimRequest, SimResponse } from "./message.js";

/**
 * How a connection fails instead of carrying an answer:
 * - `reset`: the server resets the connection (TCP RST; node clients see `ECONNRESET`);
 * - `hang-up`: the server closes the connection before any answer (node: `socket hang up`);
 * - `no-response`: the request is read and never answered, until the client gives up (its
 *   timeout or abort) or the doubles close.
 */
export type ConnectionFault = "reset" | "hang-up" | "no-response";

/** Every {@link ConnectionFault}, in documentation order. */
export const CONNECTION_FAULTS: readonly ConnectionFault[] = Object.freeze(["reset", "hang-up", "no-response"]);

/** Options a service's fault answer reads (each answer documents the ones it uses). */
export interface FaultAnswerOptions {
  /** For rate-limit answers: how long the client is told to wait, ms (default 1000). */
  readonly retryAfterMs?: number;
}

/**
 * One of a service's own error answers that a fault can give (the runs API's 429, the secrets
 * service's 503 sealed, the access-control service's 500 `No cluster leader`, ...).
 */
export interface FaultAnswer {
  /** The status the answer carries (for listing; `respond` decides the bytes). */
  readonly status: number;
  /** One line saying what the real service means by it. */
  readonly description: string;
  /**
   * Where the real service gives this answer, when not everywhere (the secrets service's standby
   * codes come from `sys/health` only): a fault with this answer passes other requests by.
   */
  readonly where?: string;
  appliesTo?(request: SimRequest): boolean;
  /** The answer, byte for byte as the service gives it elsewhere. */
  respond(request: SimRequest, options: FaultAnswerOptions, sim: Simulator): SimResponse;
}

/** What the handler tells a fault source about a routed request. */
export interface FaultQuery {
  /** The service's key (`runs`, `accessControl`, `secrets`). */
  readonly service: string;
  readonly request: SimRequest;
  /**
   * The request's route as the specs name it: `METHOD /template` without the API prefix, e.g.
   * `POST /runs/:run_id/actions/apply`, `POST /ssh/creds/:name` (what the journal names it);
   * absent when the request reaches no route (a catch-all row no route of the service serves).
   */
  readonly route?: string;
  /** The route's operation name, when its service names one (e.g. `apply run`; secrets: `read`). */
  readonly operation?: string;
}

/** What one applied fault does to one request. */
export interface FaultPlan {
  /** The fault's id, named in the journal entry. */
  readonly id: string;
  /** Waits before the request is handled (latency): advances a manual clock, or really waits. */
  readonly delay?: (signal: AbortSignal | undefined) => Promise<void>;
  /** The service's own error answer to give (a key of its `faultAnswers`). */
  readonly answer?: string;
  readonly answerOptions?: FaultAnswerOptions;
  /** A connection failure instead of any answer. */
  readonly connection?: ConnectionFault;
  /**
   * For `no-response`: settles when the request should stop waiting (the client went away, or the
   * doubles closed); the transport then drops the connection.
   */
  readonly hold?: (signal: AbortSignal | undefined) => Promise<void>;
  /**
   * "Commit then fail": the request is handled and its state change kept, then the client gets
   * the answer or the connection failure instead of the real answer.
   */
  readonly commit: boolean;
}

/** Decides, request by request, which fault applies (see `src/scenarios/faults/`). */
export interface FaultSource {
  /** Whether any fault is defined (the handler skips the query when none is). */
  readonly active: boolean;
  /** The plan for this request, or `undefined` to answer it normally. Counts the request. */
  plan(query: FaultQuery): FaultPlan | undefined;
}

/**
 * The error a node client sees for a dropped connection: `read ECONNRESET` for a reset,
 * `socket hang up` for a connection closed before any answer (both with `code: "ECONNRESET"`, as
 * node's own). node:http clients get it as is; `fetch` rejects, as undici does, with
 * `TypeError: fetch failed` whose `cause` is it. The node form is marked as a network failure, so
 * that a transport that cannot tell which client sent the request (nock, msw) has it shaped for
 * the client where the request is failed (see `transports/network-errors.ts`).
 * @param client - `"node"` (node:http) or `"fetch"`.
 * @example connectionError("hang-up", "node").message // "socket hang up"
 * @example (connectionError("reset", "fetch").cause as { code: string }).code // "ECONNRESET"
 */
export function connectionError(drop: "reset" | "hang-up", client: "node" | "fetch" = "node"): Error {
  const node = networkFailure(
    drop === "reset"
      ? Object.assign(new Error("read ECONNRESET"), { code: "ECONNRESET", errno: -104, syscall: "read" })
      : Object.assign(new Error("socket hang up"), { code: "ECONNRESET" }),
  );
  return client === "fetch" ? new TypeError("fetch failed", { cause: node }) : node;
}
