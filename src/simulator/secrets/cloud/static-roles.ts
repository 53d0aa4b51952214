/**
 * Static roles (`static-roles/:name`, `static-creds/:name`): a one-to-one mapping to an existing IAM
 * user whose access key the engine creates and rotates every `rotation_period` on the simulator's
 * clock. Creating a key when the user already has the maximum of two deletes the oldest one first;
 * deleting a static role deletes the key the engine created, never the user.
 *
 * Spec: secrets.md "Cloud-account engine" (static role, static creds), Limits row
 * "`rotation_period` minimum 1 minute".
 */
import type { EngineContext } from "../engine.js";
import { CloudApiError, MAX_ACCESS_KEYS_PER_USER, authenticate, createAccessKey, deleteAccessKey, getUser } from "./cloud-account.js";
import { cloudBadRequest, cloudInternal } from "./cloud-errors.js";
import { goQuote } from "./go-format.js";
import { SECRETS_LIMITS } from "../limits.js";
import type { CloudMountState, StaticCredential, StaticRoleRecord } from "./state.js";

/** Shortest allowed rotation period, seconds. */
export const MIN_ROTATION_PERIOD_SECONDS = SECRETS_LIMITS.minRotationPeriod.value;
/** How long a failed rotation waits before trying again (the real service's backoff), ms. */
export const ROTATION_RETRY_MS = 10_000;
/** The engine move that rotates a static role's credential. */
export const ROTATE_MOVE = "static-role.rotate";

/** Static role parameters; `undefined` means not supplied (allowed on update). */
export interface StaticRoleInput {
  readonly username?: string;
  /** Seconds. */
  readonly rotationPeriod?: number;
}

class RotationFailure extends Error {}

/** Checks that the IAM user exists (and, after creation, is still the same user). */
function validateUser(mount: CloudMountState, now: number, username: string, expectedId: string | undefined): string {
  let user;
  try {
    authenticate(mount, now);
    user = getUser(mount.account, username);
  } catch (error) {
    if (error instanceof CloudApiError) throw new RotationFailure(`unable to validate username ${goQuote(username)}: ${error.message}`);
    throw error;
  }
  if (expectedId !== undefined && user.userId !== expectedId) {
    throw new RotationFailure(`AWS GetUser returned a user, but the ID did not match: ${goQuote(expectedId)} was requested, but ${goQuote(user.userId)} was returned`);
  }
  return user.userId;
}

/** Creates a fresh access key for the role's user, deleting the oldest key when the user has two. */
function createCredential(ctx: EngineContext<CloudMountState>, role: Pick<StaticRoleRecord, "username" | "userId" | "rotationPeriod">): StaticCredential {
  const { mount, now, ids } = ctx;
  try {
    validateUser(mount, now, role.username, role.userId);
  } catch (error) {
    if (error instanceof RotationFailure) throw new RotationFailure(`iam user didn't exist, or username/userid didn't match: ${error.message}`);
    throw error;
  }
  const user = getUser(mount.account, role.username);
  if (user.accessKeys.length >= MAX_ACCESS_KEYS_PER_USER) {
    const oldest = user.accessKeys.reduce((a, b) => (b.createdAt < a.createdAt ? b : a));
    try {
      deleteAccessKey(mount.account, user.userName, oldest.accessKeyId);
    } catch (error) {
      if (error instanceof CloudApiError) throw new RotationFailure(`unable to delete oldest access keys for user ${goQuote(role.username)}: ${error.message}`);
      throw error;
    }
  }
  let key;
  try {
    key = createAccessKey(mount.account, user.userName, now, ids);
  } catch (error) {
    if (error instanceof CloudApiError) throw new RotationFailure(`unable to create new access keys for user ${goQuote(role.username)}: ${error.message}`);
    throw error;
  }
  return { accessKeyId: key.accessKeyId, secretAccessKey: key.secretAccessKey, rotatesAt: now + role.rotationPeriod * 1000 };
}

/**
 * Creates or updates a static role. On creation the engine creates the user's first managed access
 * key and schedules its rotation; an update with a new `rotation_period` reschedules the next
 * rotation to now plus the new period.
 * @throws {DomainError} `invalid` (400) `missing "username" parameter` /
 *   `missing "rotation_period" parameter` on creation; `internal` (500)
 *   `unable to validate username "bob": NoSuchEntity: ...`,
 *   `role rotation period out of range: must be greater than 60.00 seconds`, or
 *   `failed to create new credentials for role "x": ...`.
 * @example writeStaticRole(ctx, "app", { username: "app-user", rotationPeriod: 86_400 })
 */
export function writeStaticRole(ctx: EngineContext<CloudMountState>, name: string, input: StaticRoleInput): StaticRoleRecord {
  const operation = "write static role";
  const { mount, now } = ctx;
  const existing = mount.staticRoles[name];
  let username = existing?.username ?? "";
  let userId = existing?.userId ?? "";
  let rotationPeriod = existing?.rotationPeriod ?? 0;
  if (input.username !== undefined) {
    try {
      userId = validateUser(mount, now, input.username, existing === undefined ? undefined : existing.userId);
    } catch (error) {
      if (error instanceof RotationFailure) throw cloudInternal(operation, error.message, name);
      throw error;
    }
    username = input.username;
  } else if (existing === undefined) throw cloudBadRequest(operation, 'missing "username" parameter', name);
  if (input.rotationPeriod !== undefined) {
    const minimum = ctx.limit?.(SECRETS_LIMITS.minRotationPeriod) ?? MIN_ROTATION_PERIOD_SECONDS;
    if (input.rotationPeriod < minimum) {
      throw cloudInternal(operation, `role rotation period out of range: must be greater than ${minimum.toFixed(2)} seconds`, name);
    }
    rotationPeriod = input.rotationPeriod;
  } else if (existing === undefined) throw cloudBadRequest(operation, 'missing "rotation_period" parameter', name);
  if (existing === undefined) {
    let credential: StaticCredential;
    try {
      credential = createCredential(ctx, { username, userId, rotationPeriod });
    } catch (error) {
      if (error instanceof RotationFailure) throw cloudInternal(operation, `failed to create new credentials for role ${goQuote(name)}: ${error.message}`, name);
      throw error;
    }
    const moveId = ctx.schedule(credential.rotatesAt, ROTATE_MOVE, name);
    const created: StaticRoleRecord = { name, username, userId, rotationPeriod, credential, moveId, lastRotationError: "" };
    mount.staticRoles[name] = created;
    return created;
  }
  ctx.cancel(existing.moveId);
  const rotatesAt = now + rotationPeriod * 1000;
  const updated: StaticRoleRecord = { ...existing, username, userId, rotationPeriod, credential: { ...existing.credential, rotatesAt }, moveId: ctx.schedule(rotatesAt, ROTATE_MOVE, name) };
  mount.staticRoles[name] = updated;
  return updated;
}

/**
 * The static role, or undefined.
 * @example readStaticRole(ctx.mount, "app")?.rotationPeriod // 86400
 */
export function readStaticRole(mount: CloudMountState, name: string): StaticRoleRecord | undefined {
  return mount.staticRoles[name];
}

/**
 * Deletes a static role and the access key the engine created for it (the IAM user stays). A key
 * or user already gone at the provider does not stop the deletion. Deleting a missing role succeeds.
 * @example deleteStaticRole(ctx, "app")
 */
export function deleteStaticRole(ctx: EngineContext<CloudMountState>, name: string): void {
  const role = ctx.mount.staticRoles[name];
  if (role === undefined) return;
  try {
    deleteAccessKey(ctx.mount.account, role.username, role.credential.accessKeyId);
  } catch (error) {
    if (!(error instanceof CloudApiError)) throw error;
  }
  ctx.cancel(role.moveId);
  delete ctx.mount.staticRoles[name];
}

/**
 * The static role's current credential, or undefined.
 * @example readStaticCredentials(ctx.mount, "app")?.accessKeyId
 */
export function readStaticCredentials(mount: CloudMountState, name: string): StaticCredential | undefined {
  return mount.staticRoles[name]?.credential;
}

/**
 * The rotation move: replaces the role's credential and schedules the next rotation; when the
 * provider refuses (user deleted, credentials refused), keeps the old credential, records the
 * error and tries again 10 seconds later.
 * @example cloudEngine.moves[ROTATE_MOVE](ctx, "app")
 */
export function rotateStaticRole(ctx: EngineContext<CloudMountState>, name: string): void {
  const role = ctx.mount.staticRoles[name];
  if (role === undefined) return;
  try {
    const credential = createCredential(ctx, role);
    role.credential = credential;
    role.lastRotationError = "";
    role.moveId = ctx.schedule(credential.rotatesAt, ROTATE_MOVE, name);
  } catch (error) {
    if (!(error instanceof RotationFailure) && !(error instanceof CloudApiError)) throw error;
    role.lastRotationError = error.message;
    role.moveId = ctx.schedule(ctx.now + ROTATION_RETRY_MS, ROTATE_MOVE, name);
  }
}
