/**
 * The engine's configuration: `config/root` (the credentials the engine manages the account with),
 * `config/rotate-root` (replace those credentials with a fresh access key of the same IAM user), and
 * `config/lease` (the lease of `iam_user` credentials).
 *
 * Spec: secrets.md "Cloud-account engine" (root configuration, rotate root, lease), Errors row
 * "Rotate root when the IAM user has another access key".
 */
import type { EngineContext } from "../engine.js";
import { CloudApiError, ambientCredentialSource, authenticate, createAccessKey, currentUser, deleteAccessKey } from "./cloud-account.js";
import { cloudBadRequest, cloudInternal } from "./cloud-errors.js";
import { formatGoDuration } from "../../kernel/go-duration.js";
import { GoDurationError, goParseDuration } from "./go-duration.js";
import type { CloudMountState, CloudRootConfig } from "./state.js";

/** `config/root` parameters; `undefined` means not supplied. */
export interface RootConfigInput {
  readonly accessKey?: string;
  readonly secretKey?: string;
  readonly region?: string;
  readonly iamEndpoint?: string;
  readonly stsEndpoint?: string;
  /** Default -1 (the SDK default). */
  readonly maxRetries?: number;
  /** Empty or absent: the default template. */
  readonly usernameTemplate?: string;
}

/**
 * Writes `config/root`, replacing any earlier configuration. The credentials are not checked.
 * `access_key` and `secret_key` are required together, unless the simulated server has ambient
 * credentials (environment, shared file, instance role) to fall back on.
 * @throws {DomainError} `invalid` (400) when the keys are missing or only one is given.
 * @example writeRootConfig(ctx, { accessKey: "AKIA...", secretKey: "...", region: "us-east-1" })
 */
export function writeRootConfig(ctx: EngineContext<CloudMountState>, input: RootConfigInput): void {
  const accessKey = input.accessKey ?? "";
  const secretKey = input.secretKey ?? "";
  if ((accessKey === "") !== (secretKey === "")) {
    throw cloudBadRequest("write root configuration", "access_key and secret_key must be supplied together");
  }
  if (accessKey === "" && ambientCredentialSource(ctx.mount.account) === undefined) {
    throw cloudBadRequest("write root configuration", "access_key and secret_key are required: the server environment provides no credentials");
  }
  ctx.mount.root = {
    accessKey,
    secretKey,
    region: input.region ?? "",
    iamEndpoint: input.iamEndpoint ?? "",
    stsEndpoint: input.stsEndpoint ?? "",
    maxRetries: input.maxRetries ?? -1,
    usernameTemplate: input.usernameTemplate ?? "",
  };
}

/**
 * The stored root configuration, or undefined when none was written.
 * @example readRootConfig(ctx.mount)?.accessKey
 */
export function readRootConfig(mount: CloudMountState): CloudRootConfig | undefined {
  return mount.root ?? undefined;
}

/** The region provider calls go to when neither `config/root` nor the server environment names one. */
export const FALLBACK_REGION = "us-east-1";

/**
 * The region the engine's provider calls go to: `config/root`'s `region`, else the simulated
 * server's environment region (`AWS_REGION`, then `AWS_DEFAULT_REGION`; see
 * `CloudScenario.setServerRegion`), else `us-east-1`. A read of `config/root` still answers the
 * region as written (empty when none was given).
 *
 * Spec: secrets.md "Cloud-account engine", root configuration `region` ("falls back to server
 * environment, then `us-east-1`").
 * @example providerRegion(initialCloudMountState()) // "us-east-1"
 */
export function providerRegion(mount: Pick<CloudMountState, "root" | "account">): string {
  const configured = mount.root?.region ?? "";
  if (configured !== "") return configured;
  return mount.account.serverRegion !== "" ? mount.account.serverRegion : FALLBACK_REGION;
}

/**
 * Rotates the root credentials: creates a new access key for the IAM user owning the configured
 * key, stores it, and deletes the old key. The new key works after the account's propagation delay.
 * @returns the new access key id.
 * @throws {DomainError} `internal` (500) `no configuration found for config/root`,
 *   `error calling GetUser: ...` (credentials refused), or
 *   `error calling CreateAccessKey: LimitExceeded: Cannot exceed quota for AccessKeysPerUser: 2`
 *   (the user has another access key); `invalid` (400) when the configuration has no static keys.
 * @example rotateRoot(ctx).accessKey // "AKIA..." (the old key is deleted)
 */
export function rotateRoot(ctx: EngineContext<CloudMountState>): { accessKey: string } {
  const operation = "rotate root credentials";
  const { mount, now, ids } = ctx;
  const config = mount.root;
  if (config === null) throw cloudInternal(operation, "no configuration found for config/root");
  if (config.accessKey === "" || config.secretKey === "") {
    throw cloudBadRequest(operation, "Cannot call config/rotate-root when either access_key or secret_key is empty");
  }
  const call = <T>(name: string, fn: () => T): T => {
    try {
      return fn();
    } catch (error) {
      if (error instanceof CloudApiError) throw cloudInternal(operation, `error calling ${name}: ${error.message}`);
      throw error;
    }
  };
  call("GetUser", () => authenticate(mount, now));
  const user = call("GetUser", () => currentUser(mount.account, config.accessKey, config.secretKey, now, ids));
  const created = call("CreateAccessKey", () => createAccessKey(mount.account, user.userName, now, ids, mount.account.keyPropagationMs));
  const oldKey = config.accessKey;
  mount.root = { ...config, accessKey: created.accessKeyId, secretKey: created.secretAccessKey };
  try {
    deleteAccessKey(mount.account, user.userName, oldKey);
  } catch (error) {
    if (error instanceof CloudApiError) throw cloudInternal(operation, `error deleting old access key: ${error.message}`);
    throw error;
  }
  return { accessKey: created.accessKeyId };
}

/** `config/lease` parameters (duration strings; hour is the largest unit). */
export interface LeaseConfigInput {
  readonly lease?: string;
  readonly leaseMax?: string;
}

/**
 * Writes `config/lease`.
 * @throws {DomainError} `invalid` (400): `'lease' is a required parameter`,
 *   `Invalid lease: time: unknown unit "d" in duration "1d"`, and the same for `lease_max`.
 * @example writeLeaseConfig(ctx, { lease: "1h", leaseMax: "24h" })
 */
export function writeLeaseConfig(ctx: EngineContext<CloudMountState>, input: LeaseConfigInput): void {
  const operation = "write lease configuration";
  const lease = input.lease ?? "";
  const leaseMax = input.leaseMax ?? "";
  if (lease === "") throw cloudBadRequest(operation, "'lease' is a required parameter");
  if (leaseMax === "") throw cloudBadRequest(operation, "'lease_max' is a required parameter");
  const parse = (field: string, text: string): number => {
    try {
      return goParseDuration(text);
    } catch (error) {
      if (error instanceof GoDurationError) throw cloudBadRequest(operation, `Invalid ${field}: ${error.message}`);
      throw error;
    }
  };
  ctx.mount.lease = { leaseMs: parse("lease", lease), leaseMaxMs: parse("lease_max", leaseMax) };
}

/**
 * The lease configuration in normalised form (`1h0m0s`), or undefined when none was written.
 * @example readLeaseConfig(mount) // { lease: "1h0m0s", leaseMax: "24h0m0s" }
 */
export function readLeaseConfig(mount: CloudMountState): { lease: string; leaseMax: string } | undefined {
  if (mount.lease === null) return undefined;
  return { lease: formatGoDuration(mount.lease.leaseMs), leaseMax: formatGoDuration(mount.lease.leaseMaxMs) };
}
