/**
 * Identity fixtures the MFA login enforcement refers to: MFA methods, auth method mounts (by
 * accessor), identity groups and entities. Their own endpoints are not part of the spec ("the
 * records of MFA methods themselves: not shown"), so scenarios create them.
 */
import { UsageError } from "../kernel/errors.js";
import type { OperationContext } from "../kernel/simulator.js";
import type { AuthMountRecord, IdentityRecord, MfaMethodRecord, SecretsState } from "./state.js";
import { normalizeNamespace } from "./tokens.js";

/**
 * MFA method types a fixture may have (their records are "not shown" in the spec).
 * @example doubles.secrets.addMfaMethod(MFA_METHOD_TYPES[0]) // a totp method's id
 */
export const MFA_METHOD_TYPES: readonly string[] = Object.freeze(["totp", "duo", "okta", "pingid"]);

function checkNamespace(state: SecretsState, namespace: string): string {
  const path = normalizeNamespace(namespace);
  if (path !== "" && state.namespaces[path] === undefined) throw new UsageError(`secrets: no namespace "${namespace}" (create it first)`);
  return path;
}

/**
 * Adds an MFA method (id: a seeded UUID).
 * @throws {UsageError} for an unknown type or namespace.
 */
export function addMfaMethod(ctx: OperationContext<SecretsState>, input: { type: string; name?: string; namespace?: string; id?: string }): MfaMethodRecord {
  if (!MFA_METHOD_TYPES.includes(input.type)) throw new UsageError(`secrets: unknown MFA method type "${input.type}" (use ${MFA_METHOD_TYPES.join(", ")})`);
  const record: MfaMethodRecord = {
    id: input.id ?? ctx.ids.uuid(),
    type: input.type,
    name: input.name ?? "",
    namespace: checkNamespace(ctx.state, input.namespace ?? ""),
  };
  ctx.state.mfaMethods[record.id] = record;
  return record;
}

/** Adds an auth method mount (accessor `auth_<type>_<8 hex>`). */
export function addAuthMount(ctx: OperationContext<SecretsState>, input: { type: string; path?: string; namespace?: string; accessor?: string }): AuthMountRecord {
  const record: AuthMountRecord = {
    accessor: input.accessor ?? `auth_${input.type}_${ctx.ids.hex(8)}`,
    type: input.type,
    path: (input.path ?? input.type).replace(/^\/+|\/+$/g, ""),
    namespace: checkNamespace(ctx.state, input.namespace ?? ""),
  };
  ctx.state.authMounts[record.accessor] = record;
  return record;
}

/** Adds an identity group (id: a seeded UUID). */
export function addIdentityGroup(ctx: OperationContext<SecretsState>, input: { name: string; namespace?: string; id?: string }): IdentityRecord {
  const record: IdentityRecord = { id: input.id ?? ctx.ids.uuid(), name: input.name, namespace: checkNamespace(ctx.state, input.namespace ?? "") };
  ctx.state.identityGroups[record.id] = record;
  return record;
}

/** Adds an identity entity (id: a seeded UUID). */
export function addIdentityEntity(ctx: OperationContext<SecretsState>, input: { name: string; namespace?: string; id?: string }): IdentityRecord {
  const record: IdentityRecord = { id: input.id ?? ctx.ids.uuid(), name: input.name, namespace: checkNamespace(ctx.state, input.namespace ?? "") };
  ctx.state.identityEntities[record.id] = record;
  return record;
}
