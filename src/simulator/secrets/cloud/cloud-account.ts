/**
 * The simulated cloud provider behind a cloud engine mount: the IAM and STS calls the engine makes
 * (get/create/delete users, attach policies, join groups, tag, create/delete access keys, assume a
 * role, get a federation token), with the provider's limits (two access keys per user, STS duration
 * ranges, name lengths) and its error codes and messages.
 *
 * The account is lenient where a test rarely cares: groups and role ARNs it was never told about
 * exist (groups without policies, roles assumable for up to 12 hours), and root credentials it has
 * never seen are taken to belong to its root user. Users for static roles must exist.
 *
 * Spec: secrets.md "Cloud-account engine"; FIDELITY.md "Secrets" (cloud credentials).
 */
import { dict } from "../../kernel/dict.js";
import type { IdSource } from "../../kernel/ids.js";
import { iamUserId, longTermAccessKeyId, secretAccessKey, sessionToken, temporaryAccessKeyId } from "./key-formats.js";
import { SERVER_CREDENTIAL_PRECEDENCE, type CloudAccount, type CloudMountState, type IamAccessKey, type IamUser, type IamUserOrigin, type ServerCredentialSource, type StsSession } from "./state.js";

/**
 * A provider error: `code` is the provider's error code (`NoSuchEntity`, `LimitExceeded`, ...).
 * @example throw new CloudApiError("NoSuchEntity", "The user with name bob cannot be found.")
 */
export class CloudApiError extends Error {
  constructor(
    readonly code: string,
    readonly detail: string,
  ) {
    super(`${code}: ${detail}`);
    this.name = "CloudApiError";
  }
}

/** Most access keys one IAM user may have. */
export const MAX_ACCESS_KEYS_PER_USER = 2;
/** STS duration limits, seconds. */
export const STS_DURATION_LIMITS = Object.freeze({
  assumedRole: { min: 900, max: 43_200 },
  federationToken: { min: 900, max: 129_600 },
});

const NAME_PATTERN = /^[\w+=,.@-]+$/;

/** Who the engine's credentials are, as the provider sees them. */
export interface Principal {
  /** `static` for `config/root` keys, else the server's ambient source. */
  readonly source: "static" | "environment" | "shared_credentials_file" | "instance_role";
  /** The ARN the provider names in access-denied errors. */
  readonly arn: string;
}

/**
 * Finds the user holding an access key.
 * @example findKeyOwner(account, "AKIA...")?.user.userName // "secrets-root"
 */
export function findKeyOwner(account: CloudAccount, accessKeyId: string): { user: IamUser; key: IamAccessKey } | undefined {
  const userName = keyOwners(account)[accessKeyId];
  const user = userName === undefined ? undefined : account.users[userName];
  const key = user?.accessKeys.find((k) => k.accessKeyId === accessKeyId);
  return user !== undefined && key !== undefined ? { user, key } : undefined;
}

/** The account's index of access keys to their users ({@link CloudAccount.keyOwners}), built on first use. */
function keyOwners(account: CloudAccount): Record<string, string> {
  if (account.keyOwners !== undefined) return account.keyOwners;
  const built = dict<string>();
  for (const user of Object.values(account.users)) for (const key of user.accessKeys) built[key.accessKeyId] ??= user.userName;
  account.keyOwners = built;
  return built;
}

/**
 * Gives `user` the access key `key` (the one way keys are added: the owners' index follows).
 * @example holdAccessKey(account, user, { accessKeyId: "AKIA...", secretAccessKey: "...", createdAt: now, usableFrom: now })
 */
export function holdAccessKey(account: CloudAccount, user: IamUser, key: IamAccessKey): void {
  user.accessKeys.push(key);
  keyOwners(account)[key.accessKeyId] = user.userName;
}

/**
 * Whether an access key existed in the account and was deleted (the provider refuses it; it is
 * never adopted as a new key).
 * @example deleteAccessKey(account, "app-user", id); wasDeleted(account, id) // true
 */
export function wasDeleted(account: CloudAccount, accessKeyId: string): boolean {
  return account.deletedAccessKeys[accessKeyId] === true;
}

/** Records that an access key is gone: refused from now on, and out of the owners' index. */
function forgetAccessKey(account: CloudAccount, accessKeyId: string): void {
  account.deletedAccessKeys[accessKeyId] = true;
  const owners = keyOwners(account);
  if (owners[accessKeyId] !== undefined) delete owners[accessKeyId];
}

function userArn(account: CloudAccount, path: string, name: string): string {
  return `arn:aws:iam::${account.accountId}:user${path}${name}`;
}

/**
 * The server's ambient credential source provider calls fall back to when `config/root` has no
 * keys: the highest of the sources it has by the spec's precedence (environment variables, then a
 * shared credentials file, then an instance or task role), or undefined when it has none.
 * @example ambientCredentialSource({ ...account, serverCredentials: ["instance_role", "environment"] }) // "environment"
 */
export function ambientCredentialSource(account: Pick<CloudAccount, "serverCredentials">): ServerCredentialSource | undefined {
  return SERVER_CREDENTIAL_PRECEDENCE.find((source) => account.serverCredentials.includes(source));
}

/**
 * Checks the mount's credentials the way every provider call does: `config/root` keys (refused when
 * deleted, not yet propagated, or paired with the wrong secret; static keys always win, there is no
 * fall-back from refused keys), else the server's highest ambient credential source.
 * @param now - ms since the epoch.
 * @throws {CloudApiError} `NoCredentialProviders`, `InvalidClientTokenId`, `SignatureDoesNotMatch`.
 * @example authenticate(mount, ctx.now).arn // "arn:aws:iam::123456789012:user/secrets-root"
 */
export function authenticate(mount: CloudMountState, now: number): Principal {
  const { account, root } = mount;
  if (root !== null && root.accessKey !== "") {
    if (wasDeleted(account, root.accessKey)) {
      throw new CloudApiError("InvalidClientTokenId", "The security token included in the request is invalid.");
    }
    const owner = findKeyOwner(account, root.accessKey);
    if (owner === undefined) return { source: "static", arn: userArn(account, "/", account.rootUserName) };
    if (owner.key.secretAccessKey !== root.secretKey) {
      throw new CloudApiError(
        "SignatureDoesNotMatch",
        "The request signature we calculated does not match the signature you provided. Check your AWS Secret Access Key and signing method. Consult the service documentation for details.",
      );
    }
    if (now < owner.key.usableFrom) throw new CloudApiError("InvalidClientTokenId", "The security token included in the request is invalid.");
    return { source: "static", arn: owner.user.arn };
  }
  const ambient = ambientCredentialSource(account);
  if (ambient !== undefined) return { source: ambient, arn: userArn(account, "/", account.rootUserName) };
  throw new CloudApiError("NoCredentialProviders", "no valid providers in chain. Deprecated.\n\tFor verbose messaging see aws.Config.CredentialsChainVerboseErrors");
}

/** Builds a user record (not yet stored). */
function newUser(account: CloudAccount, name: string, path: string, origin: IamUserOrigin, now: number, ids: IdSource): IamUser {
  return {
    userName: name,
    userId: iamUserId(ids),
    path,
    arn: userArn(account, path, name),
    createdAt: now,
    origin,
    accessKeys: [],
    attachedPolicyArns: [],
    inlinePolicies: {},
    groups: [],
    tags: {},
    permissionsBoundaryArn: "",
  };
}

/**
 * `GetUser` without a name: the user the given access key belongs to. A key the account has never
 * seen is recorded as a key of the account's root user (created if needed).
 * @param now - ms since the epoch.
 * @example currentUser(account, config.accessKey, config.secretKey, now, ids).userName
 */
export function currentUser(account: CloudAccount, accessKeyId: string, secret: string, now: number, ids: IdSource): IamUser {
  const owner = findKeyOwner(account, accessKeyId);
  if (owner) return owner.user;
  let user = account.users[account.rootUserName];
  if (user === undefined) {
    user = newUser(account, account.rootUserName, "/", "root", now, ids);
    account.users[user.userName] = user;
  }
  holdAccessKey(account, user, { accessKeyId, secretAccessKey: secret, createdAt: now, usableFrom: now });
  return user;
}

/**
 * `GetUser`.
 * @throws {CloudApiError} `NoSuchEntity`.
 * @example getUser(account, "app-user").userId // "AIDA..."
 */
export function getUser(account: CloudAccount, name: string): IamUser {
  const user = account.users[name];
  if (user === undefined) throw new CloudApiError("NoSuchEntity", `The user with name ${name} cannot be found.`);
  return user;
}

/**
 * `CreateUser`.
 * @param now - ms since the epoch.
 * @throws {CloudApiError} `ValidationError` (bad name), `EntityAlreadyExists`.
 * @example createUser(account, { userName: "u", path: "/", permissionsBoundaryArn: "", origin: "dynamic" }, now, ids)
 */
export function createUser(
  account: CloudAccount,
  input: { userName: string; path: string; permissionsBoundaryArn: string; origin: IamUserOrigin },
  now: number,
  ids: IdSource,
): IamUser {
  const { userName } = input;
  if (userName.length < 1 || userName.length > 64) {
    throw new CloudApiError("ValidationError", `1 validation error detected: Value '${userName}' at 'userName' failed to satisfy constraint: Member must have length ${userName.length < 1 ? "greater than or equal to 1" : "less than or equal to 64"}`);
  }
  if (!NAME_PATTERN.test(userName)) {
    throw new CloudApiError("ValidationError", `1 validation error detected: Value '${userName}' at 'userName' failed to satisfy constraint: Member must satisfy regular expression pattern: [\\w+=,.@-]+`);
  }
  if (account.users[userName] !== undefined) throw new CloudApiError("EntityAlreadyExists", `User with name ${userName} already exists.`);
  const user = newUser(account, userName, input.path, input.origin, now, ids);
  user.permissionsBoundaryArn = input.permissionsBoundaryArn;
  account.users[userName] = user;
  return user;
}

/**
 * `AttachUserPolicy`.
 * @throws {CloudApiError} `InvalidInput` for something that is not a policy ARN.
 * @example attachUserPolicy(user, "arn:aws:iam::aws:policy/ReadOnlyAccess")
 */
export function attachUserPolicy(user: IamUser, policyArn: string): void {
  if (!/^arn:aws[\w-]*:iam::(\d{12}|aws):policy\/\S+$/.test(policyArn)) throw new CloudApiError("InvalidInput", `ARN ${policyArn} is not valid.`);
  if (!user.attachedPolicyArns.includes(policyArn)) user.attachedPolicyArns.push(policyArn);
}

/**
 * `AddUserToGroup` for each group (groups the account does not know are created empty) and `TagUser`.
 * @example addToGroupsAndTag(user, ["developers"], { team: "infra" })
 */
export function addToGroupsAndTag(user: IamUser, groups: readonly string[], tags: Readonly<Record<string, string>>): void {
  for (const group of groups) if (!user.groups.includes(group)) user.groups.push(group);
  Object.assign(user.tags, tags);
}

/**
 * `CreateAccessKey`.
 * @param now - ms since the epoch.
 * @param propagationMs - how long before the key is accepted.
 * @throws {CloudApiError} `NoSuchEntity`, `LimitExceeded` (two keys already).
 * @example createAccessKey(account, "app-user", now, ids).accessKeyId // "AKIA..."
 */
export function createAccessKey(account: CloudAccount, userName: string, now: number, ids: IdSource, propagationMs = 0): IamAccessKey {
  const user = getUser(account, userName);
  if (user.accessKeys.length >= MAX_ACCESS_KEYS_PER_USER) {
    throw new CloudApiError("LimitExceeded", `Cannot exceed quota for AccessKeysPerUser: ${MAX_ACCESS_KEYS_PER_USER}`);
  }
  const key: IamAccessKey = { accessKeyId: longTermAccessKeyId(ids), secretAccessKey: secretAccessKey(ids), createdAt: now, usableFrom: now + propagationMs };
  holdAccessKey(account, user, key);
  return key;
}

/**
 * `DeleteAccessKey`.
 * @throws {CloudApiError} `NoSuchEntity`.
 * @example deleteAccessKey(account, "app-user", "AKIA...")
 */
export function deleteAccessKey(account: CloudAccount, userName: string, accessKeyId: string): void {
  const user = getUser(account, userName);
  const index = user.accessKeys.findIndex((k) => k.accessKeyId === accessKeyId);
  if (index < 0) throw new CloudApiError("NoSuchEntity", `The Access Key with id ${accessKeyId} cannot be found.`);
  user.accessKeys.splice(index, 1);
  forgetAccessKey(account, accessKeyId);
}

/**
 * Deletes a user with its keys, policies and group memberships (a revoked `iam_user` lease).
 * @example deleteUser(account, "secrets-root-deploy-1704067200-abc") // true
 */
export function deleteUser(account: CloudAccount, userName: string): boolean {
  const user = account.users[userName];
  if (user === undefined) return false;
  for (const key of user.accessKeys) forgetAccessKey(account, key.accessKeyId);
  delete account.users[userName];
  return true;
}

/**
 * The inline policies and policy ARNs of groups (groups the account does not know have none).
 * @example groupPolicies(account, ["auditors"]) // { documents: [...], arns: [...] }
 */
export function groupPolicies(account: CloudAccount, groups: readonly string[]): { documents: string[]; arns: string[] } {
  const documents: string[] = [];
  const arns: string[] = [];
  for (const name of groups) {
    const group = account.groups[name];
    if (group === undefined) continue;
    for (const document of group.inlinePolicies) documents.push(document);
    for (const arn of group.policyArns) arns.push(arn);
  }
  return { documents, arns };
}

/**
 * Combines policy documents into one (`{"Version":"2012-10-17","Statement":[...]}`), as the real
 * service does with group policies and the role's document.
 * @throws {Error} when a document is not JSON.
 * @example combinePolicyDocuments(['{"Statement":[]}', '{"Statement":{"Effect":"Allow"}}'])
 */
export function combinePolicyDocuments(documents: readonly string[]): string {
  const statements: unknown[] = [];
  for (const document of documents) {
    if (document.trim() === "") continue;
    const parsed = JSON.parse(document) as { Statement?: unknown };
    // One by one: a client's document may hold more statements than a call takes arguments.
    if (Array.isArray(parsed.Statement)) for (const statement of parsed.Statement as unknown[]) statements.push(statement);
    else if (parsed.Statement !== undefined) statements.push(parsed.Statement);
  }
  return JSON.stringify({ Version: "2012-10-17", Statement: statements });
}

function checkName(field: string, value: string, min: number, max: number): void {
  if (value.length < min) throw new CloudApiError("ValidationError", `1 validation error detected: Value '${value}' at '${field}' failed to satisfy constraint: Member must have length greater than or equal to ${min}`);
  if (value.length > max) throw new CloudApiError("ValidationError", `1 validation error detected: Value '${value}' at '${field}' failed to satisfy constraint: Member must have length less than or equal to ${max}`);
  if (!NAME_PATTERN.test(value)) throw new CloudApiError("ValidationError", `1 validation error detected: Value '${value}' at '${field}' failed to satisfy constraint: Member must satisfy regular expression pattern: [\\w+=,.@-]*`);
}

function checkDuration(seconds: number, min: number, max: number): void {
  if (seconds < min) throw new CloudApiError("ValidationError", `1 validation error detected: Value '${seconds}' at 'durationSeconds' failed to satisfy constraint: Member must have value greater than or equal to ${min}`);
  if (seconds > max) throw new CloudApiError("ValidationError", `1 validation error detected: Value '${seconds}' at 'durationSeconds' failed to satisfy constraint: Member must have value less than or equal to ${max}`);
}

/** What an STS call asks for. */
export interface StsRequest {
  readonly durationSeconds: number;
  readonly policyDocument: string;
  readonly policyArns: readonly string[];
  /** The region whose STS endpoint is called (recorded on the session). */
  readonly region: string;
}

function issueSession(account: CloudAccount, session: Omit<StsSession, "accessKeyId" | "secretAccessKey" | "sessionToken">, ids: IdSource): StsSession {
  const full: StsSession = { accessKeyId: temporaryAccessKeyId(ids), secretAccessKey: secretAccessKey(ids), sessionToken: sessionToken(ids), ...session };
  account.sessions[full.accessKeyId] = full;
  account.sessionCount = sessionCount(account) + 1;
  return full;
}

function sessionCount(account: CloudAccount): number {
  return account.sessionCount ?? Object.keys(account.sessions).length;
}

/**
 * `AssumeRole`.
 * @param now - ms since the epoch.
 * @throws {CloudApiError} `ValidationError` (bad ARN, session name, or duration outside 900 s to the
 *   role's maximum session duration), `AccessDenied` (a role declared not assumable).
 * @example assumeRole(account, caller, { roleArn, sessionName: "job", durationSeconds: 3600, policyDocument: "", policyArns: [], region: "us-east-1" }, now, ids).arn
 */
export function assumeRole(
  account: CloudAccount,
  caller: Principal,
  input: StsRequest & { readonly roleArn: string; readonly sessionName: string },
  now: number,
  ids: IdSource,
): StsSession {
  const match = /^arn:(aws[\w-]*):iam::(\d{12}):role\/(?:[\x21-\x7e]*\/)?([\w+=,.@-]+)$/.exec(input.roleArn);
  if (match === null) throw new CloudApiError("ValidationError", `Request ARN is invalid`);
  checkName("roleSessionName", input.sessionName, 2, 64);
  const declared = account.roles[input.roleArn];
  if (declared !== undefined && !declared.assumable) {
    throw new CloudApiError("AccessDenied", `User: ${caller.arn} is not authorized to perform: sts:AssumeRole on resource: ${input.roleArn}`);
  }
  checkDuration(input.durationSeconds, STS_DURATION_LIMITS.assumedRole.min, STS_DURATION_LIMITS.assumedRole.max);
  if (declared !== undefined && input.durationSeconds > declared.maxSessionDuration) {
    throw new CloudApiError("ValidationError", "The requested DurationSeconds exceeds the MaxSessionDuration set for this role.");
  }
  const [, partition, roleAccount, roleName] = match as unknown as [string, string, string, string];
  return issueSession(
    account,
    {
      kind: "assumed_role",
      arn: `arn:${partition}:sts::${roleAccount}:assumed-role/${roleName}/${input.sessionName}`,
      roleArn: input.roleArn,
      name: input.sessionName,
      policyDocument: input.policyDocument,
      policyArns: [...input.policyArns],
      region: input.region,
      issuedAt: now,
      expiresAt: now + input.durationSeconds * 1000,
    },
    ids,
  );
}

/**
 * `GetFederationToken`.
 * @param now - ms since the epoch.
 * @throws {CloudApiError} `ValidationError` (name of 2..32 characters, duration 900..129600 s).
 * @example getFederationToken(account, { name: "secrets-1704067200-x", durationSeconds: 3600, policyDocument: "{}", policyArns: [], region: "us-east-1" }, now, ids)
 */
export function getFederationToken(account: CloudAccount, input: StsRequest & { readonly name: string }, now: number, ids: IdSource): StsSession {
  checkName("name", input.name, 2, 32);
  checkDuration(input.durationSeconds, STS_DURATION_LIMITS.federationToken.min, STS_DURATION_LIMITS.federationToken.max);
  return issueSession(
    account,
    {
      kind: "federation_token",
      arn: `arn:aws:sts::${account.accountId}:federated-user/${input.name}`,
      roleArn: "",
      name: input.name,
      policyDocument: input.policyDocument,
      policyArns: [...input.policyArns],
      region: input.region,
      issuedAt: now,
      expiresAt: now + input.durationSeconds * 1000,
    },
    ids,
  );
}

/**
 * Forgets one STS session if it has expired by `now` (ms since the epoch): its lease ended with it
 * (an STS lease lives exactly as long as its session).
 * @example forgetExpiredSession(account, lease.ref, ctx.now)
 */
export function forgetExpiredSession(account: CloudAccount, accessKeyId: string, now: number): void {
  const session = account.sessions[accessKeyId];
  if (session === undefined || session.expiresAt > now) return;
  const count = sessionCount(account);
  delete account.sessions[accessKeyId];
  account.sessionCount = count - 1;
}

/**
 * Forgets STS sessions that have expired by `now` (ms since the epoch), once the sessions have
 * doubled since the last sweep (64 at the least): a sweep walks every session, so sweeping on
 * every call made each STS issue cost what the account had ever issued (2.3 ms at a few thousand
 * sessions); this way a call costs a constant amortized. An expired session is never honoured
 * whether or not it has been swept ({@link credentialStatus} checks its expiry).
 * @example pruneExpiredSessions(account, ctx.now)
 */
export function pruneExpiredSessions(account: CloudAccount, now: number): void {
  if (sessionCount(account) < (account.sweepAt ?? 0)) return;
  let kept = 0;
  for (const [id, session] of Object.entries(account.sessions)) {
    if (session.expiresAt <= now) delete account.sessions[id];
    else kept++;
  }
  account.sessionCount = kept;
  account.sweepAt = Math.max(64, 2 * kept);
}

/** Whether, and as what, the simulated provider accepts an access key id right now. */
export type CredentialStatus =
  | { readonly kind: "iam_user"; readonly userName: string; readonly usable: boolean }
  | {
      readonly kind: "assumed_role" | "federation_token";
      readonly arn: string;
      /** ms since the epoch. */
      readonly expiresAt: number;
      /** The inline policy the session was limited by (role document combined with group policies), or empty. */
      readonly policyDocument: string;
      readonly policyArns: readonly string[];
      /** The region whose STS endpoint issued the session (`config/root` region, else the server's, else `us-east-1`). */
      readonly region: string;
    };

/**
 * What the provider makes of an access key id at `now` (ms since the epoch): an IAM user's key, a
 * live STS session, or nothing (unknown, deleted or expired).
 * @example credentialStatus(account, "ASIA...", now) // { kind: "assumed_role", arn, expiresAt, policyDocument, policyArns, region }
 */
export function credentialStatus(account: CloudAccount, accessKeyId: string, now: number): CredentialStatus | undefined {
  const owner = findKeyOwner(account, accessKeyId);
  if (owner) return { kind: "iam_user", userName: owner.user.userName, usable: now >= owner.key.usableFrom };
  const session = account.sessions[accessKeyId];
  if (session && session.expiresAt > now) {
    return { kind: session.kind, arn: session.arn, expiresAt: session.expiresAt, policyDocument: session.policyDocument, policyArns: [...session.policyArns], region: session.region };
  }
  return undefined;
}
