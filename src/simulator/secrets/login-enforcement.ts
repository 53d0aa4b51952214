/**
 * MFA login enforcement: which MFA methods must be satisfied at login, for which auth method
 * accessors, auth method types, identity groups and entities. Validated like the real service
 * (FIDELITY.md "Secrets"), with its messages:
 * - `mfa_method_ids` missing -> `missing method ids`; an unknown id -> `one of the provided method
 *   ids doesn't exist`; a method of a child or unrelated namespace -> `one of the provided method
 *   ids is in an incompatible namespace and can't be used`;
 * - unknown accessors / types / groups / entities -> `one of the auth method accessors provided is
 *   invalid`, `one of the auth method types provided is invalid`, `one of the provided group ids
 *   doesn't exist`, `one of the provided entity ids doesn't exist`;
 * - none of the four lists given -> `One of auth_method_accessors, auth_method_types,
 *   identity_group_ids, identity_entity_ids must be specified`.
 * An update keeps the lists it does not name; `mfa_method_ids` is required every time.
 *
 * Spec: secrets.md "MFA login enforcement".
 */
import type { OperationContext, ReadContext } from "../kernel/simulator.js";
import { badRequest, missing } from "./errors.js";
import { namespaceAt } from "./namespaces.js";
import type { LoginEnforcementRecord, SecretsState } from "./state.js";

/** The input of a write; a list left `undefined` was not given. */
export interface LoginEnforcementInput {
  readonly name: string;
  readonly mfaMethodIds?: readonly string[];
  readonly authMethodAccessors?: readonly string[];
  readonly authMethodTypes?: readonly string[];
  readonly identityGroupIds?: readonly string[];
  readonly identityEntityIds?: readonly string[];
}

/** The read form (wire names), every list present. */
export interface LoginEnforcementView {
  id: string;
  name: string;
  namespace_id: string;
  mfa_method_ids: string[];
  auth_method_accessors: string[];
  auth_method_types: string[];
  identity_group_ids: string[];
  identity_entity_ids: string[];
}

function key(namespace: string, name: string): string {
  return `${namespace}|${name}`;
}

/** The wire read form of an enforcement. */
export function viewOf(record: LoginEnforcementRecord): LoginEnforcementView {
  return {
    id: record.id,
    name: record.name,
    namespace_id: record.namespaceId,
    mfa_method_ids: [...record.mfaMethodIds],
    auth_method_accessors: [...record.authMethodAccessors],
    auth_method_types: [...record.authMethodTypes],
    identity_group_ids: [...record.identityGroupIds],
    identity_entity_ids: [...record.identityEntityIds],
  };
}

/** Whether a fixture in `fixtureNamespace` is visible from `namespace` (the same or a child namespace). */
function inCurrentOrChild(namespace: string, fixtureNamespace: string): boolean {
  return fixtureNamespace.startsWith(namespace);
}

/**
 * Creates or updates the enforcement `name` in `namespace`.
 * @throws {DomainError} 400 with the real service's messages (see the module comment).
 */
export function writeLoginEnforcement(ctx: OperationContext<SecretsState>, namespace: string, input: LoginEnforcementInput): LoginEnforcementRecord {
  const operation = "write login enforcement";
  const state = ctx.state;
  if (input.name === "") throw badRequest(operation, "missing enforcement name");
  if (input.mfaMethodIds === undefined) throw badRequest(operation, "missing method ids");
  for (const id of input.mfaMethodIds) {
    const method = state.mfaMethods[id];
    if (method === undefined) throw badRequest(operation, "one of the provided method ids doesn't exist");
    if (!namespace.startsWith(method.namespace)) {
      throw badRequest(operation, "one of the provided method ids is in an incompatible namespace and can't be used");
    }
  }
  let oneOfLastFour = false;
  if (input.authMethodAccessors !== undefined) {
    for (const accessor of input.authMethodAccessors) {
      const mount = state.authMounts[accessor];
      if (mount === undefined || !inCurrentOrChild(namespace, mount.namespace)) throw badRequest(operation, "one of the auth method accessors provided is invalid");
    }
    oneOfLastFour = true;
  }
  if (input.authMethodTypes !== undefined) {
    for (const type of input.authMethodTypes) {
      const found = Object.values(state.authMounts).some((m) => m.type === type && inCurrentOrChild(namespace, m.namespace));
      if (!found) throw badRequest(operation, "one of the auth method types provided is invalid");
    }
    oneOfLastFour = true;
  }
  if (input.identityGroupIds !== undefined) {
    for (const id of input.identityGroupIds) {
      const group = state.identityGroups[id];
      if (group === undefined || !inCurrentOrChild(namespace, group.namespace)) throw badRequest(operation, "one of the provided group ids doesn't exist");
    }
    oneOfLastFour = true;
  }
  if (input.identityEntityIds !== undefined) {
    for (const id of input.identityEntityIds) {
      const entity = state.identityEntities[id];
      if (entity === undefined || !inCurrentOrChild(namespace, entity.namespace)) throw badRequest(operation, "one of the provided entity ids doesn't exist");
    }
    oneOfLastFour = true;
  }
  if (!oneOfLastFour) {
    throw badRequest(operation, "One of auth_method_accessors, auth_method_types, identity_group_ids, identity_entity_ids must be specified");
  }
  const ns = namespaceAt(state, namespace);
  const existing = state.loginEnforcements[key(namespace, input.name)];
  const record: LoginEnforcementRecord = existing ?? {
    id: ctx.ids.uuid(),
    name: input.name,
    namespaceId: ns?.id ?? "root",
    namespace,
    mfaMethodIds: [],
    authMethodAccessors: [],
    authMethodTypes: [],
    identityGroupIds: [],
    identityEntityIds: [],
  };
  record.mfaMethodIds = [...input.mfaMethodIds];
  if (input.authMethodAccessors !== undefined) record.authMethodAccessors = [...input.authMethodAccessors];
  if (input.authMethodTypes !== undefined) record.authMethodTypes = [...input.authMethodTypes];
  if (input.identityGroupIds !== undefined) record.identityGroupIds = [...input.identityGroupIds];
  if (input.identityEntityIds !== undefined) record.identityEntityIds = [...input.identityEntityIds];
  state.loginEnforcements[key(namespace, input.name)] = record;
  return record;
}

/**
 * Reads the enforcement `name` of `namespace` (readable only from its own namespace).
 * @throws {DomainError} 404 (empty `errors`) when missing.
 */
export function readLoginEnforcement(ctx: ReadContext<SecretsState>, namespace: string, name: string): LoginEnforcementView {
  const record = ctx.state.loginEnforcements[key(namespace, name)];
  if (record === undefined) throw missing("read login enforcement", name);
  return viewOf(record);
}

/** Deletes the enforcement `name` of `namespace` (deleting a missing one succeeds, as in the real service). */
export function deleteLoginEnforcement(ctx: OperationContext<SecretsState>, namespace: string, name: string): void {
  delete ctx.state.loginEnforcements[key(namespace, name)];
}

/** Enforcements of `namespace` and its parents, sorted by name: `keys` and `key_info` (read forms). */
export function listLoginEnforcements(ctx: ReadContext<SecretsState>, namespace: string): { keys: string[]; keyInfo: Record<string, LoginEnforcementView> } {
  const visible = Object.values(ctx.state.loginEnforcements)
    .filter((record) => namespace.startsWith(record.namespace))
    .sort((a, b) => (a.name === b.name ? a.namespace.localeCompare(b.namespace) : a.name < b.name ? -1 : 1));
  const keyInfo: Record<string, LoginEnforcementView> = {};
  for (const record of visible) keyInfo[record.name] ??= viewOf(record);
  return { keys: [...new Set(visible.map((r) => r.name))], keyInfo };
}
