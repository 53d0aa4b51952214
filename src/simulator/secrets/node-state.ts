/**
 * The node's state as the health endpoint reports it, and whether other requests are served.
 *
 * Spec: secrets.md "States and transitions" (node states and default codes). Transitions are not
 * shown in the spec: scenarios and the control API set the state directly.
 */
import { UsageError } from "../kernel/errors.js";
import type { Tracer } from "../kernel/trace.js";
import { secretsError } from "./errors.js";

/**
 * Node states (spec table rows):
 * - `active`: initialized, unsealed, active (200);
 * - `standby`: unsealed standby (429);
 * - `performance-standby`: performance standby (473);
 * - `dr-secondary-active`, `dr-secondary-standby`: the active and standby nodes of a DR secondary (472);
 * - `not-initialized` (501);
 * - `sealed` (503).
 */
export type NodeState =
  | "active"
  | "standby"
  | "performance-standby"
  | "dr-secondary-active"
  | "dr-secondary-standby"
  | "not-initialized"
  | "sealed";

/**
 * Every node state, in the spec table's order (spec "States and transitions").
 * @example NODE_STATES.includes("sealed") // true
 */
export const NODE_STATES: readonly NodeState[] = Object.freeze([
  "active",
  "standby",
  "dr-secondary-active",
  "dr-secondary-standby",
  "performance-standby",
  "not-initialized",
  "sealed",
]);

/** The trace subject of node states (coverage: the node states requests were answered in). */
export const NODE_STATE_SUBJECT = "node state";

/**
 * Traces that a request was answered with the node in `state`.
 * @example traceNodeState(ctx, ctx.state.node.state)
 */
export function traceNodeState(ctx: Tracer, state: NodeState): void {
  ctx.trace({ kind: "event", subject: NODE_STATE_SUBJECT, name: state });
}

/** The license block of an enterprise node's health answer. */
export interface NodeLicense {
  state: string;
  /** RFC 3339, or `""`. */
  expiryTime: string;
  terminated: boolean;
}

/** The node's status (part of the secrets state). */
export interface NodeStatus {
  state: NodeState;
  /**
   * Cluster instability: a DR secondary or performance standby answers like a plain standby
   * (429 unless `standbyok`), the spec's "rare cases".
   */
  unstable: boolean;
  version: string;
  clusterName: string;
  clusterId: string;
  /** `replication_performance_mode` of the active node (`disabled`, `primary`, `secondary`). */
  replicationPerformanceMode: string;
  /** `null` leaves `license` out of the health answer. */
  license: NodeLicense | null;
  /**
   * The seal's key shares and threshold (`n` and `t` of `sys/seal-status`); absent: 1 and 1 on an
   * initialized node (a dev server's), 0 and 0 before initialization. `sys/init` sets them.
   */
  sealShares?: number;
  sealThreshold?: number;
}

/** Options a scenario may set with the state. */
export interface NodeStateOptions {
  unstable?: boolean;
  version?: string;
  clusterName?: string;
  replicationPerformanceMode?: string;
  license?: NodeLicense | null;
}

/**
 * Parses a node state name (scenario and control API input).
 * @throws {UsageError} for an unknown name.
 * @example toNodeState("performance-standby") // "performance-standby"
 */
export function toNodeState(value: unknown): NodeState {
  if (typeof value === "string" && (NODE_STATES as readonly string[]).includes(value)) return value as NodeState;
  throw new UsageError(`unknown node state ${JSON.stringify(value)} (use ${NODE_STATES.join(", ")})`);
}

/** Flags of a node state as the health body reports them. */
export interface NodeFlags {
  readonly initialized: boolean;
  readonly sealed: boolean;
  readonly standby: boolean;
  readonly performanceStandby: boolean;
  readonly drSecondary: boolean;
}

/**
 * The flag table: one frozen row per node state, as the health body reports them.
 * @example NODE_FLAGS.sealed // { initialized: true, sealed: true, standby: true, performanceStandby: false, drSecondary: false }
 */
export const NODE_FLAGS: Readonly<Record<NodeState, NodeFlags>> = Object.freeze({
  active: { initialized: true, sealed: false, standby: false, performanceStandby: false, drSecondary: false },
  standby: { initialized: true, sealed: false, standby: true, performanceStandby: false, drSecondary: false },
  "performance-standby": { initialized: true, sealed: false, standby: true, performanceStandby: true, drSecondary: false },
  "dr-secondary-active": { initialized: true, sealed: false, standby: false, performanceStandby: false, drSecondary: true },
  "dr-secondary-standby": { initialized: true, sealed: false, standby: true, performanceStandby: false, drSecondary: true },
  "not-initialized": { initialized: false, sealed: true, standby: true, performanceStandby: false, drSecondary: false },
  sealed: { initialized: true, sealed: true, standby: true, performanceStandby: false, drSecondary: false },
});

/**
 * Refuses a request the node cannot serve in its state: 503 while sealed or not initialized, 400
 * on a DR secondary (which serves no client requests). Standbys serve (they forward to the active node).
 * @throws {DomainError} `unavailable` or `invalid`.
 */
export function assertServing(node: NodeStatus, operation: string): void {
  const flags = NODE_FLAGS[node.state];
  if (flags.sealed) throw secretsError("unavailable", operation, "Vault is sealed", { state: node.state });
  if (flags.drSecondary) {
    throw secretsError("invalid", operation, "path disabled in replication DR secondary mode", { state: node.state });
  }
}
