/**
 * The node's seal status (`sys/seal-status`) and initialization (`sys/init`), read from the node
 * state the health endpoint reports.
 *
 * Spec: secrets.md "States and transitions" (node states); the endpoints themselves are not in the
 * spec: they answer as the real service does (issue 23; docs/decisions/secrets.md "Seal status and init").
 */
import type { OperationContext } from "../kernel/simulator.js";
import { badRequest } from "./errors.js";
import { NODE_FLAGS, type NodeStatus } from "./node-state.js";
import type { SecretsState } from "./state.js";
import { createToken } from "./tokens.js";

/** The `sys/seal-status` body (wire field names, the real service's order). */
export interface SealStatusBody {
  type: "shamir";
  initialized: boolean;
  sealed: boolean;
  /** Key shares needed to unseal. */
  t: number;
  /** Key shares made at init. */
  n: number;
  /** Key shares entered so far (unsealing is not simulated: always 0). */
  progress: number;
  nonce: string;
  version: string;
  migration: boolean;
  /** Left out while sealed (the real service does not know its cluster then). */
  cluster_name?: string;
  cluster_id?: string;
  recovery_seal: boolean;
  storage_type: string;
}

/**
 * The seal status of `node`: `t` and `n` are its seal's threshold and shares (1 and 1 unless
 * `sys/init` or a scenario set them; 0 and 0 before initialization).
 * @example sealStatusBody(state.node) // { type: "shamir", initialized: true, sealed: false, t: 1, n: 1, progress: 0, ... }
 */
export function sealStatusBody(node: NodeStatus): SealStatusBody {
  const flags = NODE_FLAGS[node.state];
  const body: SealStatusBody = {
    type: "shamir",
    initialized: flags.initialized,
    sealed: flags.sealed,
    t: flags.initialized ? (node.sealThreshold ?? 1) : 0,
    n: flags.initialized ? (node.sealShares ?? 1) : 0,
    progress: 0,
    nonce: "",
    version: node.version,
    migration: false,
    recovery_seal: false,
    storage_type: "raft",
  };
  if (!flags.sealed) {
    body.cluster_name = node.clusterName;
    body.cluster_id = node.clusterId;
  }
  return body;
}

/** What `sys/init` asks for. */
export interface InitInput {
  readonly secretShares: number;
  readonly secretThreshold: number;
}

/** What `sys/init` answers: the key shares (hex and base64) and a new root token. */
export interface InitResult {
  readonly keys: readonly string[];
  readonly keysBase64: readonly string[];
  readonly rootToken: string;
}

/**
 * Initializes a node that is not initialized: it becomes sealed with `t`/`n` from the input, and a
 * new root token is made. Unsealing is not simulated: a scenario sets the node `active`.
 * @throws {DomainError} 400 `Vault is already initialized` on an initialized node (the real
 * service's answer, whatever the body); 400 `invalid seal configuration: <reason>` for shares and
 * threshold the real seal refuses.
 * @example initNode(ctx, { secretShares: 1, secretThreshold: 1 }).rootToken
 */
export function initNode(ctx: OperationContext<SecretsState>, input: InitInput): InitResult {
  const operation = "initialize";
  const node = ctx.state.node;
  if (NODE_FLAGS[node.state].initialized) throw badRequest(operation, "Vault is already initialized");
  const problem = sealConfigProblem(input.secretShares, input.secretThreshold);
  if (problem !== undefined) throw badRequest(operation, `invalid seal configuration: ${problem}`);
  const keys: string[] = [];
  for (let i = 0; i < input.secretShares; i++) keys.push(ctx.ids.hex(input.secretShares === 1 ? 64 : 66));
  const root = createToken(ctx, { policies: ["root"], displayName: "root", noDefaultPolicy: true });
  node.state = "sealed";
  node.sealShares = input.secretShares;
  node.sealThreshold = input.secretThreshold;
  return { keys, keysBase64: keys.map((hex) => Buffer.from(hex, "hex").toString("base64")), rootToken: root.id };
}

/** The real seal configuration check, in its order and wording. */
function sealConfigProblem(shares: number, threshold: number): string | undefined {
  if (shares < 1) return "shares must be at least one";
  if (threshold < 1) return "threshold must be at least one";
  if (shares > 1 && threshold === 1) return "threshold must be greater than one for multiple shares";
  if (shares > 255) return "shares must be less than 256";
  if (threshold > 255) return "threshold must be less than 256";
  if (threshold > shares) return "threshold cannot be larger than shares";
  return undefined;
}
