/**
 * The secrets service's simulator definition: initial state (root token, default mounts, an active
 * node) and its timed moves (lease expiry, engine moves).
 *
 * Spec: secrets.md (whole document).
 */
import { UsageError } from "../kernel/errors.js";
import type { IdSource } from "../kernel/ids.js";
import type { OperationContext, ServiceDefinition } from "../kernel/simulator.js";
import { ENGINE_MOVE, endLease, runEngineMove } from "./engine-runtime.js";
import { SECRETS_ENGINES, defaultMountsOf, type DefaultMount, type EngineRegistry } from "./engines.js";
import { SECRETS } from "./errors.js";
import { HEALTH_CODE_NAMES, HEALTH_CODE_SUBJECT, defaultLicense } from "./health.js";
import { LEASE_EXPIRE_MOVE } from "./leases.js";
import { LEASE_EVENTS, SECRETS_TOKEN_EVENTS } from "./lifecycle-events.js";
import { NODE_STATES, NODE_STATE_SUBJECT } from "./node-state.js";
import type { MountRecord, SecretsState } from "./state.js";
import { SECRETS_ID_KINDS, newTokenSecret } from "./tokens.js";
import { SECRETS_LIMIT_TABLE } from "./limits.js";
import { WRAPPING_EXPIRE_MOVE, expireWrapping } from "./wrapping.js";
import { dict } from "../kernel/dict.js";

/** Options of {@link secretsDefinition}. */
export interface SecretsDefinitionOptions {
  /** Engine types (default: the built-in registry, SSH and cloud). */
  readonly engines?: EngineRegistry;
  /** Mounts made at start (default: each engine type at its own name). */
  readonly defaultMounts?: readonly DefaultMount[];
  /** The root token's secret (default: generated from the seed). */
  readonly rootToken?: string;
}

/**
 * The `version` the health endpoint reports by default (spec "Versioning": the health response
 * carries the server version; an enterprise build, since managed keys and namespaces are enterprise).
 * @example doubles.secrets.setNodeState("active", { version: DEFAULT_VERSION })
 */
export const DEFAULT_VERSION = "1.15.6+ent";

/**
 * What the secrets service traces: the node states requests were answered in, the health codes
 * answered, token and lease lifecycle events (spec "States and transitions": transitions not shown).
 */
const SECRETS_TRACED = Object.freeze({
  events: Object.freeze({
    [NODE_STATE_SUBJECT]: NODE_STATES,
    [HEALTH_CODE_SUBJECT]: HEALTH_CODE_NAMES,
    token: SECRETS_TOKEN_EVENTS,
    lease: LEASE_EVENTS,
  }),
});

/**
 * Builds the service definition.
 * @example new Simulator({ services: [secretsDefinition()] })
 */
export function secretsDefinition(options: SecretsDefinitionOptions = {}): ServiceDefinition<SecretsState> {
  const engines = options.engines ?? SECRETS_ENGINES;
  // Copies: the state is built from the mounts as given now (built once per process and copied, see cacheInitialState).
  const mounts = (options.defaultMounts ?? defaultMountsOf(engines)).map((mount) => ({ ...mount }));
  return {
    name: SECRETS,
    initialState: ({ now, ids }) => {
      const rootToken = options.rootToken ?? newTokenSecret({ ids });
      const state: SecretsState = {
        node: {
          state: "active",
          unstable: false,
          version: DEFAULT_VERSION,
          clusterName: `vault-cluster-${ids.hex(8)}`,
          clusterId: ids.uuid(),
          replicationPerformanceMode: "disabled",
          license: defaultLicense(now),
        },
        tokens: dict([
          [
            rootToken,
            {
            id: rootToken,
            accessor: ids.string(24),
            displayName: "root",
            policies: ["root"],
            namespace: "",
            createdAt: now,
            expiresAt: null,
            path: "auth/token/root",
            },
          ],
        ]),
        rootToken,
        policies: dict(),
        mounts: dict(),
        leases: dict(),
        managedKeys: dict(),
        backends: { keys: dict(), keyRings: [], pkcs11Libraries: ["hsm"], environment: {} },
        namespaces: dict(),
        mfaMethods: dict(),
        authMounts: dict(),
        identityGroups: dict(),
        identityEntities: dict(),
        loginEnforcements: dict(),
        wrappings: dict(),
        writeIndex: 0,
      };
      for (const mount of mounts) {
        const record = newMount(engines, ids, mount);
        state.mounts[record.path] = record;
      }
      return state;
    },
    moves: {
      [LEASE_EXPIRE_MOVE]: (ctx: OperationContext<SecretsState>, payload) => {
        endLease(ctx, engines, String(payload), "expired");
      },
      [ENGINE_MOVE]: (ctx: OperationContext<SecretsState>, payload) => runEngineMove(ctx, engines, payload),
      [WRAPPING_EXPIRE_MOVE]: (ctx: OperationContext<SecretsState>, payload) => expireWrapping(ctx, String(payload)),
    },
    traced: SECRETS_TRACED,
    idKinds: SECRETS_ID_KINDS,
    limits: SECRETS_LIMIT_TABLE,
    // The built-in engines' initial mount states are built from nothing else; an engine registry
    // of the user's may read anything, so its states are built anew each time.
    cacheInitialState: engines === SECRETS_ENGINES,
  };
}

function newMount(engines: EngineRegistry, ids: IdSource, mount: DefaultMount): MountRecord {
  const engine = engines[mount.type];
  if (engine === undefined) throw new UsageError(`secrets: no engine type "${mount.type}" for default mount "${mount.path}"`);
  const path = mount.path.replace(/^\/+|\/+$/g, "");
  return {
    path,
    type: mount.type,
    uuid: ids.uuid(),
    accessor: `${mount.type}_${ids.hex(8)}`,
    description: mount.description ?? "",
    allowedManagedKeys: [],
    engineState: engine.initialMountState(),
  };
}
