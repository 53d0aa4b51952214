/**
 * The shape of the service's own (non-engine) routes: `sys/...` and `identity/...`, relative to
 * the request's namespace, with the same operations, capability rules and results as engine routes.
 */
import type { SimRequest } from "../http.js";
import type { OperationContext, ReadContext, Simulator } from "../../simulator/kernel/simulator.js";
import type { Capability, Caller } from "../../simulator/secrets/engine.js";
import type { EngineRegistry } from "../../simulator/secrets/engines.js";
import type { SecretsState } from "../../simulator/secrets/state.js";
import type { EngineResult } from "./engine-routes.js";
import type { Operation } from "./request.js";

/** What a core route handler receives. */
export interface CoreRouteContext {
  readonly sim: Simulator;
  readonly request: SimRequest;
  readonly operation: Operation;
  readonly params: Readonly<Record<string, string>>;
  readonly query: URLSearchParams;
  /** JSON body (or query parameters for reads). */
  readonly body: Readonly<Record<string, unknown>>;
  /** Namespace path (`""` = root, else `ns1/`). */
  readonly namespace: string;
  readonly caller: Caller | undefined;
  readonly engines: EngineRegistry;
  /** A transactional change of the secrets state. */
  update<R>(fn: (ctx: OperationContext<SecretsState>) => R): R;
  read<R>(fn: (ctx: ReadContext<SecretsState>) => R): R;
}

/** One core route. */
export interface CoreRoute {
  readonly operations: readonly Operation[];
  /** Relative to the namespace, e.g. `/sys/managed-keys/:type/:name`. */
  readonly path: string;
  readonly unauthenticated?: boolean;
  /** Answers while the node is sealed or not initialized (`sys/seal-status`, `sys/init`), like health. */
  readonly servesSealed?: boolean;
  /** Refused (404 `unsupported path`) outside the root namespace. */
  readonly rootNamespaceOnly?: boolean;
  readonly capabilities?: (ctx: CoreRouteContext) => readonly Capability[];
  /** Whether a create-or-update target exists (create vs update capability). */
  readonly exists?: (ctx: CoreRouteContext) => boolean;
  readonly handler: (ctx: CoreRouteContext) => EngineResult;
}
