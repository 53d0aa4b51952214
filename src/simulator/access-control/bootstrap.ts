/**
 * ACL bootstrap (`PUT /acl/bootstrap`): once, the ACL system hands out a management token (policy
 * `global-management`, Description `Bootstrap Token (Global Management)`); afterwards every
 * bootstrap is refused with the index of that bootstrap, the "reset index", which an operator
 * writes into the real service's reset file to allow one more bootstrap ({@link resetBootstrap}).
 *
 * A world starts bootstrapped: its built-in management token (the scenario's `bootstrapToken`)
 * counts as the bootstrap at its index, as a real cluster configured with an initial management
 * token bootstraps with it (docs/decisions/access-control.md, "ACL bootstrap").
 */
import type { OperationContext } from "../kernel/simulator.js";
import { aclError } from "./errors.js";
import { GLOBAL_MANAGEMENT_POLICY_ID, nextIndex, type AccessControlState } from "./state.js";
import { builtinToken, freshUuid } from "./tokens.js";
import { tokenView, type TokenView } from "./views.js";

/** The description of a token made by bootstrap. */
export const BOOTSTRAP_TOKEN_DESCRIPTION = "Bootstrap Token (Global Management)";

/**
 * Bootstraps the ACL system: makes a management token and answers it, SecretID shown. Needs no
 * token (any presented one is ignored, as by the real service).
 * @throws {DomainError} `forbidden` (403) `Permission denied: ACL bootstrap no longer allowed
 * (reset index: N)` once bootstrapped, N the index of the last bootstrap.
 * @example bootstrapAcl(ctx).policies // [{ id: "00000000-0000-0000-0000-000000000001", name: "global-management" }]
 */
export function bootstrapAcl(ctx: OperationContext<AccessControlState>): TokenView {
  const { bootstrapState } = ctx.state;
  if (!bootstrapState.allowed) {
    throw aclError("forbidden", "bootstrap", `Permission denied: ACL bootstrap no longer allowed (reset index: ${bootstrapState.resetIndex})`);
  }
  const accessorId = freshUuid(ctx);
  const secretId = freshUuid(ctx);
  const index = nextIndex(ctx.state);
  const token = builtinToken({ accessorId, secretId, description: BOOTSTRAP_TOKEN_DESCRIPTION, policies: [GLOBAL_MANAGEMENT_POLICY_ID] }, ctx.now, index);
  ctx.state.tokens[accessorId] = token;
  ctx.state.secrets[secretId] = accessorId;
  ctx.state.bootstrapState = { resetIndex: index, allowed: false };
  return tokenView(ctx.state, token, true);
}

/**
 * Allows one more bootstrap, as writing the current reset index into the real service's
 * `acl-bootstrap-reset` file does. Tokens made before stay valid.
 * @returns the reset index it used.
 * @example resetBootstrap(ctx) // 3 in a fresh world
 */
export function resetBootstrap(ctx: OperationContext<AccessControlState>): number {
  ctx.state.bootstrapState = { ...ctx.state.bootstrapState, allowed: true };
  return ctx.state.bootstrapState.resetIndex;
}

/**
 * Whether `PUT /acl/bootstrap` would succeed now, and the reset index it would otherwise report.
 * @example bootstrapStatus(state) // { allowed: false, resetIndex: 3 }
 */
export function bootstrapStatus(state: Readonly<AccessControlState>): { readonly allowed: boolean; readonly resetIndex: number } {
  return { ...state.bootstrapState };
}
