/**
 * Dynamic cloud credentials (`creds/:name`, `sts/:name`): an IAM user with an access key
 * (`iam_user`, leased per `config/lease`, deleted when the lease ends), or temporary STS credentials
 * (`assumed_role`, `federation_token`, leased for their TTL, valid at the provider until they
 * expire).
 *
 * Spec: secrets.md "Cloud-account engine" (credential parameters, legacy roles and the two
 * credential endpoints), Errors and Limits rows on generated names and `role_session_name`;
 * FIDELITY.md "Secrets" (cloud credentials).
 */
import type { EngineContext, Lease } from "../engine.js";
import {
  CloudApiError,
  addToGroupsAndTag,
  assumeRole,
  attachUserPolicy,
  authenticate,
  combinePolicyDocuments,
  createAccessKey,
  createUser,
  deleteUser,
  getFederationToken,
  groupPolicies,
  forgetExpiredSession,
  pruneExpiredSessions,
} from "./cloud-account.js";
import { cloudBadRequest, cloudInternal } from "./cloud-errors.js";
import { goQuote } from "./go-format.js";
import { readRole } from "./roles.js";
import { providerRegion } from "./root-config.js";
import type { CloudMountState, CloudRole } from "./state.js";
import { iamUserLeaseMs, stsTtlSeconds } from "./ttl.js";
import { SECRETS_LIMITS } from "../limits.js";
import { UsernameError, generateUsername, normalizeDisplayName, type UsernameKind } from "./username-template.js";

/** Longest `role_session_name`; longer ones are cut. */
export const ROLE_SESSION_NAME_LIMIT = 64;

/** A credentials request. */
export interface CredentialRequest {
  /** Which endpoint was called: legacy roles give `iam_user` only through `creds`, STS types only through `sts`. */
  readonly path: "creds" | "sts";
  readonly roleName: string;
  /** Must be one of the role's `role_arns`; optional when it has exactly one. */
  readonly roleArn?: string;
  /** Normalised and cut to 64 characters; generated when absent or empty. */
  readonly roleSessionName?: string;
  /** Seconds; only for STS types. */
  readonly ttlSeconds?: number;
}

/** Issued credentials and their lease. */
export interface IssuedCredentials {
  readonly credentialType: "iam_user" | "assumed_role" | "federation_token";
  readonly accessKey: string;
  readonly secretKey: string;
  /** `null` for IAM users. */
  readonly securityToken: string | null;
  /** The IAM user, assumed-role session or federated user ARN. */
  readonly arn: string;
  readonly lease: Lease;
}

const OPERATION = "issue credentials";

function usernameFor(ctx: EngineContext<CloudMountState>, kind: UsernameKind, roleName: string): string {
  try {
    return generateUsername(kind, { displayName: ctx.caller?.displayName ?? "", roleName, template: ctx.mount.root?.usernameTemplate ?? "" }, ctx.now, ctx.ids);
  } catch (error) {
    if (error instanceof UsernameError) throw cloudInternal(OPERATION, error.message, roleName);
    throw error;
  }
}

function providerCall<T>(prefix: string, roleName: string, fn: () => T): T {
  try {
    return fn();
  } catch (error) {
    if (error instanceof CloudApiError) throw cloudBadRequest(OPERATION, `${prefix}: ${error.message}`, roleName);
    throw error;
  }
}

function goStringSlice(values: readonly string[]): string {
  return `[]string{${values.map(goQuote).join(", ")}}`;
}

/**
 * Issues credentials for a role.
 * @throws {DomainError} `invalid` (400): `Role "x" not found`, legacy path refusals, role ARN
 *   problems, and provider refusals (`Error creating IAM user: ...`, `Error assuming role: ...`,
 *   `Error generating STS keys: ...`); `internal` (500) when the username template fails or makes a
 *   name longer than 64 (IAM) or 32 (STS) characters.
 * @example issueCredentials(ctx, { path: "creds", roleName: "deploy" }).accessKey // "AKIA..."
 */
export function issueCredentials(ctx: EngineContext<CloudMountState>, request: CredentialRequest): IssuedCredentials {
  const { roleName } = request;
  const role = readRole(ctx.mount, roleName);
  if (role === undefined) throw cloudBadRequest(OPERATION, `Role ${goQuote(roleName)} not found`, roleName);
  const ttl = stsTtlSeconds(request.ttlSeconds, role, Math.floor(ctx.leaseTtls.maxMs / 1000), ctx.limit?.(SECRETS_LIMITS.defaultStsTtl) ?? SECRETS_LIMITS.defaultStsTtl.value);
  let credentialType = "";
  if (role.credentialTypes.length === 1) credentialType = role.credentialTypes[0] ?? "";
  else if (role.credentialTypes.length > 1) {
    credentialType = request.path === "creds" ? "iam_user" : "federation_token";
    if (!role.credentialTypes.includes(credentialType)) {
      throw cloudBadRequest(OPERATION, `requested credential type ${goQuote(credentialType)} not in allowed credential types ${goStringSlice(role.credentialTypes)}`, roleName);
    }
  }
  if (role.prohibitFlexibleCredPath) {
    if (credentialType === "iam_user" && request.path === "sts") {
      throw cloudBadRequest(OPERATION, "attempted to retrieve iam_user credentials through the sts path; this is not allowed for legacy roles", roleName);
    }
    if (credentialType !== "iam_user" && request.path === "creds") {
      throw cloudBadRequest(OPERATION, `attempted to retrieve ${credentialType} credentials through the creds path; this is not allowed for legacy roles`, roleName);
    }
  }
  switch (credentialType) {
    case "iam_user":
      return issueIamUser(ctx, request, role);
    case "assumed_role": {
      let roleArn = request.roleArn ?? "";
      if (roleArn === "") {
        if (role.roleArns.length !== 1) throw cloudBadRequest(OPERATION, "did not supply a role_arn parameter and unable to determine one", roleName);
        roleArn = role.roleArns[0] ?? "";
      } else if (!role.roleArns.includes(roleArn)) {
        throw cloudBadRequest(OPERATION, `role_arn ${goQuote(roleArn)} not in allowed role arns for role ${goQuote(roleName)}`, roleName);
      }
      return issueAssumedRole(ctx, request, role, roleArn, ttl);
    }
    case "federation_token":
      return issueFederationToken(ctx, request, role, ttl);
    default:
      throw cloudBadRequest(OPERATION, `unknown credential_type: ${goQuote(credentialType)}`, roleName);
  }
}

function issueIamUser(ctx: EngineContext<CloudMountState>, request: CredentialRequest, role: CloudRole): IssuedCredentials {
  const { mount, now, ids } = ctx;
  const { roleName } = request;
  const username = usernameFor(ctx, "iam_user", roleName);
  const user = providerCall("Error creating IAM user", roleName, () => {
    authenticate(mount, now);
    return createUser(mount.account, { userName: username, path: role.userPath === "" ? "/" : role.userPath, permissionsBoundaryArn: role.permissionsBoundaryArn, origin: "dynamic" }, now, ids);
  });
  for (const arn of role.policyArns) providerCall("Error attaching user policy", roleName, () => attachUserPolicy(user, arn));
  if (role.policyDocument !== "") user.inlinePolicies[roleName] = role.policyDocument;
  addToGroupsAndTag(user, role.iamGroups, role.iamTags);
  const key = providerCall("Error creating access keys", roleName, () => createAccessKey(mount.account, username, now, ids));
  const lease = ctx.issueLease({ idPath: `${request.path}/${roleName}`, kind: "iam_user", ref: username, ttlMs: iamUserLeaseMs(mount.lease, ctx.leaseTtls), renewable: true, ...(mount.lease !== null && mount.lease.leaseMaxMs > 0 ? { maxTtlMs: mount.lease.leaseMaxMs } : {}) });
  return { credentialType: "iam_user", accessKey: key.accessKeyId, secretKey: key.secretAccessKey, securityToken: null, arn: user.arn, lease };
}

/** What every STS call of a role sends: its policies (combined with its groups') and the provider region. */
function stsRequestOf(mount: CloudMountState, role: CloudRole): { policyDocument: string; policyArns: string[]; region: string } {
  const groups = groupPolicies(mount.account, role.iamGroups);
  const policyDocument = groups.documents.length > 0 ? combinePolicyDocuments([...groups.documents, role.policyDocument]) : role.policyDocument;
  return { policyDocument, policyArns: [...role.policyArns, ...groups.arns], region: providerRegion(mount) };
}

function issueAssumedRole(ctx: EngineContext<CloudMountState>, request: CredentialRequest, role: CloudRole, roleArn: string, ttl: number): IssuedCredentials {
  const { mount, now, ids } = ctx;
  const { roleName } = request;
  const policies = stsRequestOf(mount, role);
  const requestedName = request.roleSessionName ?? "";
  const sessionName = requestedName === "" ? usernameFor(ctx, "assume_role", roleName) : normalizeDisplayName(requestedName).slice(0, ROLE_SESSION_NAME_LIMIT);
  pruneExpiredSessions(mount.account, now);
  const session = providerCall("Error assuming role", roleName, () => {
    const caller = authenticate(mount, now);
    return assumeRole(mount.account, caller, { roleArn, sessionName, durationSeconds: ttl, ...policies }, now, ids);
  });
  const lease = ctx.issueLease({ idPath: `${request.path}/${roleName}`, kind: "assumed_role", ref: session.accessKeyId, ttlMs: ttl * 1000, renewable: false });
  return { credentialType: "assumed_role", accessKey: session.accessKeyId, secretKey: session.secretAccessKey, securityToken: session.sessionToken, arn: session.arn, lease };
}

function issueFederationToken(ctx: EngineContext<CloudMountState>, request: CredentialRequest, role: CloudRole, ttl: number): IssuedCredentials {
  const { mount, now, ids } = ctx;
  const { roleName } = request;
  const policies = stsRequestOf(mount, role);
  const name = usernameFor(ctx, "sts", roleName);
  if (policies.policyDocument === "" && policies.policyArns.length === 0) {
    throw cloudBadRequest(OPERATION, "must specify at least one of policy_arns or policy_document with federation_token credential_type", roleName);
  }
  pruneExpiredSessions(mount.account, now);
  const session = providerCall("Error generating STS keys", roleName, () => {
    authenticate(mount, now);
    return getFederationToken(mount.account, { name, durationSeconds: ttl, ...policies }, now, ids);
  });
  const lease = ctx.issueLease({ idPath: `${request.path}/${roleName}`, kind: "federation_token", ref: session.accessKeyId, ttlMs: ttl * 1000, renewable: false });
  return { credentialType: "federation_token", accessKey: session.accessKeyId, secretKey: session.secretAccessKey, securityToken: session.sessionToken, arn: session.arn, lease };
}

/**
 * What dies with a credentials lease: an `iam_user` lease takes its IAM user (and access key) with
 * it; STS credentials stay valid at the provider until they expire (revoking their lease early does
 * not revoke them), so only expired sessions are forgotten.
 * @example cloudEngine.onLeaseEnd(ctx, lease) // an iam_user lease deletes its IAM user
 */
export function endCredentialLease(ctx: EngineContext<CloudMountState>, lease: Lease): void {
  if (lease.kind === "iam_user") deleteUser(ctx.mount.account, lease.ref);
  else forgetExpiredSession(ctx.mount.account, lease.ref, ctx.now);
  pruneExpiredSessions(ctx.mount.account, ctx.now);
}
