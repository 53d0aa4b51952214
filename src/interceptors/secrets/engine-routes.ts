/**
 * The HTTP side of the secrets engine contract: each engine lists its routes relative to its mount
 * (`/roles/:name`, `/creds/:name`); the secrets core finds the mount by path, checks the token's
 * policy capabilities, parses the body, runs the handler and wraps results in the response envelope.
 */
import type { SimRequest, SimResponse } from "../http.js";
import type { Capability, Caller, EngineContext, Lease } from "../../simulator/secrets/engine.js";
import type { Simulator } from "../../simulator/kernel/simulator.js";
import { unsupportedPath } from "./request.js";

/**
 * What a handler returns: an envelope answer (`data`, optional lease, warnings) that the core wraps
 * as `{request_id, lease_id, renewable, lease_duration, data, wrap_info, warnings, auth}`, `204` for
 * an empty success, or a raw response (e.g. `text/plain` public key).
 */
export type EngineResult =
  | { readonly kind: "data"; readonly data: Record<string, unknown>; readonly leaseId?: string; readonly leaseDurationSeconds?: number; readonly renewable?: boolean; readonly warnings?: readonly string[]; readonly status?: number }
  | { readonly kind: "no-content" }
  | { readonly kind: "raw"; readonly response: SimResponse };

/** What an engine route handler receives. */
export interface EngineRouteContext<MountState> {
  readonly sim: Simulator;
  readonly request: SimRequest;
  /** The logical operation: `LIST` for `LIST` and `GET ?list=true`. */
  readonly operation: "read" | "list" | "create-or-update" | "delete";
  readonly params: Readonly<Record<string, string>>;
  readonly query: URLSearchParams;
  /** JSON body (an object; `{}` when there is none); malformed JSON was already refused with 400. */
  readonly body: Readonly<Record<string, unknown>>;
  readonly mountPath: string;
  readonly caller: Caller | undefined;
  /** Runs a state change on this mount, transactional with the request. */
  update<R>(fn: (ctx: EngineContext<MountState>) => R): R;
  /** Reads this mount's state. */
  read<R>(fn: (ctx: EngineContext<MountState>) => R): R;
}

/** One route of an engine. */
export interface EngineRoute<MountState> {
  /** `read` = GET, `list` = LIST or GET ?list=true, `create-or-update` = POST/PUT, `delete` = DELETE. */
  readonly operations: readonly ("read" | "list" | "create-or-update" | "delete")[];
  /** Relative to the mount, e.g. `/roles/:name`. */
  readonly path: string;
  /** No token needed (`/ssh/verify`, `/ssh/public_key`). */
  readonly unauthenticated?: boolean;
  /**
   * Capabilities required; default by operation (read->read, list->list, delete->delete,
   * create-or-update->create when the resource is new else update; the core asks
   * {@link EngineRoute.exists} to tell). Return a list to require all of them (SSH sign: create+update).
   */
  readonly capabilities?: (ctx: EngineRouteContext<MountState>) => readonly Capability[];
  /** Whether the target of a create-or-update exists (decides create vs update capability). */
  readonly exists?: (ctx: EngineRouteContext<MountState>) => boolean;
  readonly handler: (ctx: EngineRouteContext<MountState>) => EngineResult;
}

/** The HTTP face of an engine type. */
export interface EngineHttp<MountState> {
  readonly type: string;
  readonly routes: readonly EngineRoute<MountState>[];
}

/** The empty success: `204` without a body. */
export const NO_CONTENT: EngineResult = Object.freeze({ kind: "no-content" });

/**
 * An envelope answer with `data` and, when there are any, `warnings`.
 * @example dataResult({ keys: ["a"] }) // { kind: "data", data: { keys: ["a"] } }
 */
export function dataResult(data: Record<string, unknown>, warnings?: readonly string[]): EngineResult {
  return warnings && warnings.length > 0 ? { kind: "data", data, warnings } : { kind: "data", data };
}

/**
 * An envelope answer for something issued under `lease`: its id, its whole TTL in seconds
 * (`lease_duration`, rounded down) and whether it is renewable.
 * @example leasedResult({ key: otp }, lease) // { kind: "data", ..., leaseDurationSeconds: 2764800 }
 */
export function leasedResult(data: Record<string, unknown>, lease: Lease): EngineResult {
  return {
    kind: "data",
    data,
    leaseId: lease.id,
    leaseDurationSeconds: Math.floor((lease.expiresAt - lease.issuedAt) / 1000),
    renewable: lease.renewable,
  };
}

/**
 * The path parameter `param` (default `name`), which must match `pattern`.
 * @throws {DomainError} 404 `unsupported path` (the real service's answer) when it does not.
 * @example pathName(ctx, /^\w+$/) // "web" for `/roles/web`; `/roles/a%20b` is a 404
 */
export function pathName(ctx: { readonly params: Readonly<Record<string, string>> }, pattern: RegExp, param = "name"): string {
  const value = ctx.params[param] ?? "";
  if (!pattern.test(value)) throw unsupportedPath();
  return value;
}
