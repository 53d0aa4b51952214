/**
 * Response wrapping: an answer kept behind a single-use wrapping token until it is unwrapped once
 * or its TTL passes on the simulator clock (a `wrapping.expire` move), as the real service keeps it
 * in the wrapping token's cubbyhole.
 *
 * Spec: not in secrets.md (the real service's `X-Vault-Wrap-TTL` and `sys/wrapping/*`); issue 23;
 * docs/decisions/secrets.md "Response wrapping".
 */
import type { OperationContext } from "../kernel/simulator.js";
import { badRequest } from "./errors.js";
import type { SecretsState, WrappingRecord } from "./state.js";
import { newTokenSecret } from "./tokens.js";

/** The simulator move that ends a wrapping token. */
export const WRAPPING_EXPIRE_MOVE = "wrapping.expire";

/**
 * The real service's refusal of an unknown, used or expired wrapping token (400).
 * @example WRAPPING_TOKEN_INVALID // "wrapping token is not valid or does not exist"
 */
export const WRAPPING_TOKEN_INVALID = "wrapping token is not valid or does not exist";

/** What a new wrapping keeps. */
export interface WrapInput {
  /** The wrapped answer's JSON body. */
  readonly body: string;
  /** ms, more than 0. */
  readonly ttlMs: number;
  /** The wrapped request's path relative to its namespace (`ssh/creds/otp-role`). */
  readonly creationPath: string;
  /** The accessor of a wrapped token (`auth` answers), else `""`. */
  readonly wrappedAccessor?: string;
  readonly namespace?: string;
}

/**
 * Keeps `input.body` behind a new wrapping token ending `ttlMs` from now.
 * @returns the wrapping (token `s.` and 24 base62 characters, accessor 24 characters).
 * @example wrap(ctx, { body: '{"data":{}}', ttlMs: 60_000, creationPath: "sys/wrapping/wrap" }).token
 */
export function wrap(ctx: OperationContext<SecretsState>, input: WrapInput): WrappingRecord {
  let token = newTokenSecret(ctx);
  while (ctx.state.wrappings[token] !== undefined || ctx.state.tokens[token] !== undefined) token = newTokenSecret(ctx);
  const expiresAt = ctx.now + input.ttlMs;
  const record: WrappingRecord = {
    token,
    accessor: ctx.ids.string(24),
    ttlMs: input.ttlMs,
    createdAt: ctx.now,
    expiresAt,
    creationPath: input.creationPath,
    wrappedAccessor: input.wrappedAccessor ?? "",
    namespace: input.namespace ?? "",
    body: input.body,
    moveId: ctx.schedule(expiresAt, WRAPPING_EXPIRE_MOVE, token),
  };
  ctx.state.wrappings[token] = record;
  return record;
}

/**
 * The live wrapping behind `token` at `now`.
 * @throws {DomainError} 400 `wrapping token is not valid or does not exist` for a missing,
 * unknown, used or expired token.
 * @example lookupWrapping(state, token, now, "lookup wrapping token").creationPath
 */
export function lookupWrapping(state: SecretsState, token: string | undefined, now: number, operation: string): WrappingRecord {
  const record = token === undefined || token === "" ? undefined : state.wrappings[token];
  if (record === undefined || now >= record.expiresAt) throw badRequest(operation, WRAPPING_TOKEN_INVALID);
  return record;
}

/**
 * Takes the wrapped answer out: the token is spent (single use) whether or not the caller reads it.
 * @throws {DomainError} 400 `wrapping token is not valid or does not exist`.
 * @example unwrap(ctx, token).body // the answer the wrapped request would have given
 */
export function unwrap(ctx: OperationContext<SecretsState>, token: string | undefined, operation = "unwrap"): WrappingRecord {
  const record = lookupWrapping(ctx.state, token, ctx.now, operation);
  ctx.cancel(record.moveId);
  delete ctx.state.wrappings[record.token];
  return record;
}

/**
 * Wraps the same answer behind a new token with the original TTL and creation path; the old token
 * is spent.
 * @throws {DomainError} 400 `wrapping token is not valid or does not exist`.
 * @example rewrap(ctx, token).token !== token // true
 */
export function rewrap(ctx: OperationContext<SecretsState>, token: string | undefined): WrappingRecord {
  const old = unwrap(ctx, token, "rewrap");
  return wrap(ctx, { body: old.body, ttlMs: old.ttlMs, creationPath: old.creationPath, wrappedAccessor: old.wrappedAccessor, namespace: old.namespace });
}

/** The expiry move: forgets the wrapping (a token already spent is gone already). */
export function expireWrapping(ctx: OperationContext<SecretsState>, token: string): void {
  delete ctx.state.wrappings[token];
}
