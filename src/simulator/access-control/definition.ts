/**
 * The access-control service's simulator definition: its initial state (the built-in
 * `global-management` policy, the anonymous token and the bootstrap token) and its timed moves
 * (token expiry).
 *
 * Spec: access-control.md "Token" (built-in tokens), "States and transitions".
 */
import type { IdSource } from "../kernel/ids.js";
import type { ServiceDefinition } from "../kernel/simulator.js";
import { contentHash } from "./hash.js";
import { isReservedId } from "./names.js";
import {
  ACCESS_CONTROL,
  ANONYMOUS_ACCESSOR_ID,
  ANONYMOUS_SECRET_ID,
  DEFAULT_NAMESPACE,
  GLOBAL_MANAGEMENT_POLICY_ID,
  GLOBAL_MANAGEMENT_RULES,
  type AccessControlSettings,
  type AccessControlState,
  type PolicyRecord,
} from "./state.js";
import { TOKEN_EXPIRE_MOVE, builtinToken, expireToken } from "./tokens.js";
import { ACL_TOKEN_EVENTS, ACL_TOKEN_SUBJECT } from "./token-events.js";
import { dict } from "../kernel/dict.js";
import { clonePlain } from "../kernel/clone.js";
import { ACCESS_CONTROL_LIMIT_TABLE, limitedDefaultSettings } from "./limits.js";

function seededUuid(ids: IdSource): string {
  for (;;) {
    const id = ids.uuid();
    if (!isReservedId(id)) return id;
  }
}

/**
 * The initial state: settings, the `default` namespace, the `global-management` policy (index 1),
 * the anonymous token (index 2) and the bootstrap token linked to `global-management` (index 3),
 * whose ids come from the seeded id source. The ACL system counts as bootstrapped (reset index 3).
 * @example initialAccessControlState({ now: 0, ids: new IdSource(1) }).index // 3
 */
export function initialAccessControlState(ctx: { readonly now: number; readonly ids: IdSource }, settings: Partial<AccessControlSettings> = {}): AccessControlState {
  const policyBase = {
    id: GLOBAL_MANAGEMENT_POLICY_ID,
    name: "global-management",
    description: "Builtin Policy that grants unlimited access",
    rules: GLOBAL_MANAGEMENT_RULES,
    datacenters: [],
    namespace: DEFAULT_NAMESPACE,
    createIndex: 1,
    modifyIndex: 1,
  };
  const policy: PolicyRecord = { ...policyBase, hash: contentHash({ name: policyBase.name, rules: policyBase.rules }) };
  const anonymous = builtinToken(
    { accessorId: ANONYMOUS_ACCESSOR_ID, secretId: ANONYMOUS_SECRET_ID, description: "Anonymous Token", policies: [] },
    ctx.now,
    2,
  );
  const bootstrap = builtinToken(
    {
      accessorId: seededUuid(ctx.ids),
      secretId: seededUuid(ctx.ids),
      description: "Bootstrap Token (Global Management)",
      policies: [GLOBAL_MANAGEMENT_POLICY_ID],
    },
    ctx.now,
    3,
  );
  return {
    settings: { ...limitedDefaultSettings(ctx), ...settings },
    index: 3,
    tokens: dict([[anonymous.accessorId, anonymous], [bootstrap.accessorId, bootstrap]]),
    secrets: dict([[anonymous.secretId, anonymous.accessorId], [bootstrap.secretId, bootstrap.accessorId]]),
    policies: dict([[policy.id, policy]]),
    roles: dict(),
    authMethods: dict(),
    bindingRules: dict(),
    namespaces: dict([[DEFAULT_NAMESPACE, { name: DEFAULT_NAMESPACE, description: "Builtin Default Namespace", defaultPolicies: [], defaultRoles: [] }]]),
    expiryMoves: dict(),
    bootstrap: { accessorId: bootstrap.accessorId, secretId: bootstrap.secretId },
    // The built-in management token counts as a bootstrap at its index, as a real cluster whose
    // configuration names an initial management token bootstraps with it (docs/decisions/access-control.md).
    bootstrapState: { resetIndex: bootstrap.createIndex, allowed: false },
  };
}

/**
 * Builds the access-control service definition.
 * @param settings - initial settings (e.g. `{ namespaces: true }` for the enterprise edition).
 * @example new Simulator({ services: [accessControlDefinition({ namespaces: true })] })
 */
export function accessControlDefinition(settings: Partial<AccessControlSettings> = {}): ServiceDefinition<AccessControlState> {
  // A copy: the state is built from the settings as given now (it is built once per process and copied, see cacheInitialState).
  const fixed: Partial<AccessControlSettings> = clonePlain(settings);
  return {
    name: ACCESS_CONTROL,
    initialState: (ctx) => initialAccessControlState(ctx, fixed),
    cacheInitialState: true,
    moves: {
      [TOKEN_EXPIRE_MOVE]: (ctx, payload) => expireToken(ctx, String(payload)),
    },
    traced: { events: { [ACL_TOKEN_SUBJECT]: ACL_TOKEN_EVENTS } },
    limits: ACCESS_CONTROL_LIMIT_TABLE,
  };
}
