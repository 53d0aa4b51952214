/**
 * The health answer: the status code by the real service's precedence, and the body fields.
 *
 * Precedence (FIDELITY.md "Secrets", the real service's order): not initialized > sealed > DR
 * secondary > performance standby (unless `perfstandbyok`) > standby (unless `standbyok`) > active.
 *
 * Spec: secrets.md "Health (root namespace only)".
 */
import { rfc3339, unixSeconds } from "../kernel/time.js";
import { NODE_FLAGS, type NodeStatus } from "./node-state.js";

/** The status codes a health request may override (query parameters `activecode`, ...). */
export interface HealthCodes {
  readonly activecode: number;
  readonly standbycode: number;
  readonly drsecondarycode: number;
  readonly performancestandbycode: number;
  readonly sealedcode: number;
  readonly uninitcode: number;
}

/**
 * Default status codes of the health endpoint (spec "States and transitions" and the health
 * query parameter table).
 * @example DEFAULT_HEALTH_CODES.performancestandbycode // 473
 */
export const DEFAULT_HEALTH_CODES: HealthCodes = Object.freeze({
  activecode: 200,
  standbycode: 429,
  drsecondarycode: 472,
  performancestandbycode: 473,
  sealedcode: 503,
  uninitcode: 501,
});

/** A health query. */
export interface HealthQuery {
  readonly standbyok: boolean;
  readonly perfstandbyok: boolean;
  readonly codes: HealthCodes;
}

/** The name of one of the health codes (a query parameter): `activecode`, `sealedcode`, ... */
export type HealthCodeName = keyof HealthCodes;

/**
 * Every health code name, in the spec's parameter-table order (the universe coverage counts the
 * codes answered against).
 * @example HEALTH_CODE_NAMES[0] // "activecode"
 */
export const HEALTH_CODE_NAMES: readonly HealthCodeName[] = Object.freeze(Object.keys(DEFAULT_HEALTH_CODES) as HealthCodeName[]);

/** The trace subject of health codes (coverage: which of the codes the health endpoint answered). */
export const HEALTH_CODE_SUBJECT = "health code";

/**
 * Which of the codes answers for `node` under `query`, by the real service's precedence.
 * @example healthCodeName(sealedNode, query) // "sealedcode"
 */
export function healthCodeName(node: NodeStatus, query: Omit<HealthQuery, "codes">): HealthCodeName {
  const flags = NODE_FLAGS[node.state];
  if (!flags.initialized) return "uninitcode";
  if (flags.sealed) return "sealedcode";
  if (node.unstable && (flags.drSecondary || flags.performanceStandby)) {
    return query.standbyok ? "activecode" : "standbycode";
  }
  if (flags.drSecondary) return "drsecondarycode";
  if (flags.performanceStandby) return query.perfstandbyok ? "activecode" : "performancestandbycode";
  if (flags.standby) return query.standbyok ? "activecode" : "standbycode";
  return "activecode";
}

/**
 * The status code for `node` under `query`: the value of {@link healthCodeName}'s code.
 * @example healthCode(node, { standbyok: true, perfstandbyok: false, codes: DEFAULT_HEALTH_CODES })
 */
export function healthCode(node: NodeStatus, query: HealthQuery): number {
  return query.codes[healthCodeName(node, query)];
}

/** The GET body of the health endpoint (wire field names). */
export interface HealthBody {
  initialized: boolean;
  sealed: boolean;
  standby: boolean;
  performance_standby: boolean;
  replication_performance_mode: string;
  replication_dr_mode: string;
  /** Unix seconds of the simulator clock. */
  server_time_utc: number;
  version: string;
  cluster_name?: string;
  cluster_id?: string;
  last_wal?: number;
  license?: { state: string; expiry_time: string; terminated: boolean };
}

/**
 * The health body at simulator time `now` (ms). Sealed and uninitialized nodes leave out
 * `cluster_name` and `cluster_id` and report replication modes `unknown`; `last_wal` appears on
 * an active node once something was written.
 * @param now - simulator time, ms since the epoch (`server_time_utc` is whole Unix seconds).
 * @param writeIndex - successful writes so far (`last_wal`).
 * @example healthBody(state.node, Date.UTC(2024, 0, 1), 0).server_time_utc // 1704067200
 */
export function healthBody(node: NodeStatus, now: number, writeIndex: number): HealthBody {
  const flags = NODE_FLAGS[node.state];
  const body: HealthBody = {
    initialized: flags.initialized,
    sealed: flags.sealed,
    standby: flags.standby,
    performance_standby: flags.performanceStandby,
    replication_performance_mode: flags.sealed ? "unknown" : node.replicationPerformanceMode,
    replication_dr_mode: flags.sealed ? "unknown" : flags.drSecondary ? "secondary" : "disabled",
    server_time_utc: unixSeconds(now),
    version: node.version,
  };
  if (!flags.sealed) {
    body.cluster_name = node.clusterName;
    body.cluster_id = node.clusterId;
  }
  if (flags.initialized && !flags.sealed && !flags.standby && writeIndex > 0) body.last_wal = writeIndex;
  if (node.license !== null) {
    body.license = { state: node.license.state, expiry_time: node.license.expiryTime, terminated: node.license.terminated };
  }
  return body;
}

/** The default license of the enterprise node: autoloaded, valid one year from `start` (ms). */
export function defaultLicense(start: number): { state: string; expiryTime: string; terminated: boolean } {
  return { state: "autoloaded", expiryTime: rfc3339(start + 365 * 86_400_000), terminated: false };
}
