/**
 * `/identity/mfa/login-enforcement/:name` (create or update, read, delete) and its `LIST`.
 *
 * Spec: secrets.md "MFA login enforcement"; FIDELITY.md "Secrets" (MFA enforcement errors, read
 * returns every list, never null).
 */
import {
  deleteLoginEnforcement,
  listLoginEnforcements,
  readLoginEnforcement,
  writeLoginEnforcement,
} from "../../simulator/secrets/login-enforcement.js";
import type { CoreRoute } from "./core-route.js";
import { stringListField } from "./request.js";

/**
 * The list fields of a login enforcement body, in the order the route reads them (each a list of
 * strings: a JSON array or a comma-separated string). The testing kit generates bodies from it.
 * @example LOGIN_ENFORCEMENT_LISTS[0] // "mfa_method_ids"
 */
export const LOGIN_ENFORCEMENT_LISTS = Object.freeze(["mfa_method_ids", "auth_method_accessors", "auth_method_types", "identity_group_ids", "identity_entity_ids"] as const);
const LISTS = LOGIN_ENFORCEMENT_LISTS;

/** The login enforcement routes. */
export const LOGIN_ENFORCEMENT_ROUTES: readonly CoreRoute[] = Object.freeze([
  {
    operations: ["list"],
    path: "/identity/mfa/login-enforcement",
    handler: (ctx) =>
      ctx.read((c) => {
        const { keys, keyInfo } = listLoginEnforcements(c, ctx.namespace);
        return { kind: "data", data: { keys, key_info: keyInfo } };
      }),
  },
  {
    operations: ["read", "create-or-update", "delete"],
    path: "/identity/mfa/login-enforcement/:name",
    exists: (ctx) => ctx.read((c) => c.state.loginEnforcements[`${ctx.namespace}|${ctx.params.name ?? ""}`] !== undefined),
    handler: (ctx) => {
      const name = ctx.params.name ?? "";
      if (ctx.operation === "read") return ctx.read((c) => ({ kind: "data", data: { ...readLoginEnforcement(c, ctx.namespace, name) } }));
      if (ctx.operation === "delete") {
        ctx.update((c) => deleteLoginEnforcement(c, ctx.namespace, name));
        return { kind: "no-content" };
      }
      const [mfaMethodIds, authMethodAccessors, authMethodTypes, identityGroupIds, identityEntityIds] = LISTS.map((field) => stringListField(ctx.body, field));
      ctx.update((c) =>
        writeLoginEnforcement(c, ctx.namespace, { name, mfaMethodIds, authMethodAccessors, authMethodTypes, identityGroupIds, identityEntityIds }),
      );
      return { kind: "no-content" };
    },
  },
]);
