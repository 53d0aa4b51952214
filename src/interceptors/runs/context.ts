/**
 * How run orchestration routes reach the simulator: authenticate the bearer token and run the
 * operation in ONE simulator call (a read, or a transactional update), with a serialize context
 * ready for the response.
 */
import type { RouteContext } from "../http.js";
import type { OperationContext, ReadContext } from "../../simulator/kernel/simulator.js";
import { authenticate, type Caller } from "../../simulator/runs/access.js";
import { RUNS } from "../../simulator/runs/errors.js";
import type { RunsState } from "../../simulator/runs/state.js";
import { linksFor } from "./json-api.js";
import { bearerToken } from "./request.js";
import type { SerializeContext } from "./serializers.js";

/** What an authenticated route operation receives. */
export interface Authenticated<C> {
  readonly sim: C;
  readonly caller: Caller;
  /** Serialize context bound to this state, caller, time and link base. */
  readonly out: SerializeContext;
}

/**
 * Authenticates and runs a read-only operation.
 * @throws {DomainError} `unauthenticated` (401) for a missing or unknown token, or what `fn` throws.
 * @example
 * readAs(ctx, "show run", ({ sim, caller, out }) => serializeRun(out, visibleRun(sim.state, caller, id, "show run"), { single: true }));
 */
export function readAs<R>(ctx: RouteContext, operation: string, fn: (a: Authenticated<ReadContext<RunsState>>) => R): R {
  const secret = bearerToken(ctx.request);
  const link = linksFor(ctx);
  const archive = ctx.mount.bases.archive ?? ctx.mount.bases.api;
  return ctx.sim.read<RunsState, R>(RUNS, (sim) => {
    const caller = authenticate(sim.state, secret, operation);
    return fn({ sim, caller, out: { state: sim.state, caller, now: sim.now, link, archive } });
  });
}

/**
 * Authenticates and runs a state-changing operation, transactionally: if anything throws, nothing
 * the request did is kept.
 * @throws {DomainError} `unauthenticated` (401) for a missing or unknown token, or what `fn` throws.
 * @example
 * updateAs(ctx, "apply run", ({ sim, caller }) => applyRun(sim, caller, runId, null)); // rolled back if it throws
 */
export function updateAs<R>(ctx: RouteContext, operation: string, fn: (a: Authenticated<OperationContext<RunsState>>) => R): R {
  const secret = bearerToken(ctx.request);
  const link = linksFor(ctx);
  const archive = ctx.mount.bases.archive ?? ctx.mount.bases.api;
  return ctx.sim.update<RunsState, R>(RUNS, (sim) => {
    const caller = authenticate(sim.state, secret, operation);
    return fn({ sim, caller, out: { state: sim.state, caller, now: sim.now, link, archive } });
  });
}
