/**
 * Scenario controls of a cloud-account engine mount: the simulated cloud account behind it (IAM
 * users and their access keys, groups, assumable roles, ambient server credentials, key
 * propagation delay), root configuration in one call, entries left by an earlier version, and
 * inspection of issued credentials and static roles.
 *
 * Spec: secrets.md "Cloud-account engine" (rotate root fails when the IAM user has another access
 * key; static roles map to existing IAM users; legacy role data).
 */
import { parseDuration, type Duration } from "../../../simulator/kernel/duration.js";
import { UsageError } from "../../../simulator/kernel/errors.js";
import type { EngineContext } from "../../../simulator/secrets/engine.js";
import {
  CloudApiError,
  createAccessKey,
  createUser,
  credentialStatus,
  deleteAccessKey,
  ambientCredentialSource,
  deleteUser,
  findKeyOwner,
  holdAccessKey,
  wasDeleted,
  type CredentialStatus,
} from "../../../simulator/secrets/cloud/cloud-account.js";
import { longTermAccessKeyId, secretAccessKey } from "../../../simulator/secrets/cloud/key-formats.js";
import { providerRegion, writeRootConfig } from "../../../simulator/secrets/cloud/root-config.js";
import { readRole, writeRole, type RoleInput } from "../../../simulator/secrets/cloud/roles.js";
import { writeStaticRole } from "../../../simulator/secrets/cloud/static-roles.js";
import { SERVER_CREDENTIAL_PRECEDENCE, type CloudMountState, type IamUser, type ServerCredentialSource } from "../../../simulator/secrets/cloud/state.js";

/** What the controls need from the secrets service's scenario (its `updateMount`/`readMount`). */
export interface MountAccess {
  updateMount<M, R>(mountPath: string, fn: (ctx: EngineContext<M>) => R): R;
  readMount<M, R>(mountPath: string, fn: (ctx: EngineContext<M>) => R): R;
}

/** An access key pair. */
export interface AccessKeyPair {
  readonly accessKeyId: string;
  readonly secretAccessKey: string;
}

/** A simulated IAM user, as the controls show it (a copy). */
export interface IamUserView {
  readonly userName: string;
  readonly userId: string;
  readonly arn: string;
  readonly path: string;
  /** Ids of its access keys, oldest first. */
  readonly accessKeyIds: readonly string[];
  readonly attachedPolicyArns: readonly string[];
  /** Inline policies by name. */
  readonly inlinePolicies: Readonly<Record<string, string>>;
  readonly groups: readonly string[];
  readonly tags: Readonly<Record<string, string>>;
  readonly permissionsBoundaryArn: string;
  /** ms since the epoch. */
  readonly createdAt: number;
}

/** A static role's rotation state. */
export interface StaticRoleView {
  readonly username: string;
  /** Seconds. */
  readonly rotationPeriod: number;
  readonly accessKeyId: string;
  /** ms since the epoch. */
  readonly rotatesAt: number;
  /** Why the last rotation failed (retried 10 s later), or empty. */
  readonly lastRotationError: string;
}

/**
 * A role (`roles/:name`), as an operator writes it: the spec's parameters in camel case. Durations
 * are ms or duration strings (`"1h"`).
 */
export interface CloudRoleOptions {
  /** `iam_user`, `assumed_role` or `federation_token`. */
  readonly credentialType: "iam_user" | "assumed_role" | "federation_token";
  /** For `assumed_role`: the role ARNs it may assume. */
  readonly roleArns?: readonly string[];
  readonly policyArns?: readonly string[];
  /** An inline policy: JSON text, or an object (written as JSON). */
  readonly policyDocument?: string | Readonly<Record<string, unknown>>;
  readonly iamGroups?: readonly string[];
  readonly iamTags?: Readonly<Record<string, string>>;
  readonly defaultStsTtl?: Duration;
  readonly maxStsTtl?: Duration;
  readonly userPath?: string;
  readonly permissionsBoundaryArn?: string;
}

/** A role as {@link CloudScenario.role} reads it (a copy; TTLs in seconds). */
export interface CloudRoleView {
  readonly credentialTypes: readonly string[];
  readonly roleArns: readonly string[];
  readonly policyArns: readonly string[];
  readonly policyDocument: string;
  readonly iamGroups: readonly string[];
  readonly iamTags: Readonly<Record<string, string>>;
  readonly defaultStsTtl: number;
  readonly maxStsTtl: number;
  readonly userPath: string;
  readonly permissionsBoundaryArn: string;
}

/** Options of {@link CloudScenario.configureRoot}. */
export interface ConfigureRootOptions {
  /** The IAM user owning the root key (created if missing; default the account's root user). */
  readonly userName?: string;
  readonly region?: string;
  readonly usernameTemplate?: string;
}

function view(user: IamUser): IamUserView {
  return {
    userName: user.userName,
    userId: user.userId,
    arn: user.arn,
    path: user.path,
    accessKeyIds: user.accessKeys.map((k) => k.accessKeyId),
    attachedPolicyArns: [...user.attachedPolicyArns],
    inlinePolicies: { ...user.inlinePolicies },
    groups: [...user.groups],
    tags: { ...user.tags },
    permissionsBoundaryArn: user.permissionsBoundaryArn,
    createdAt: user.createdAt,
  };
}

function seconds(duration: Duration): number {
  try {
    return Math.floor(parseDuration(duration) / 1000);
  } catch {
    throw new UsageError(`cloud: not a duration: ${JSON.stringify(duration)}`);
  }
}

/**
 * Controls of one cloud engine mount (default `/cloud`).
 *
 * @example
 * const cloud = new CloudScenario(doubles.secrets);
 * cloud.configureRoot();                       // root credentials of a simulated IAM user
 * cloud.createAccessKey(cloud.rootUserName()); // now rotate-root fails: the user has another key
 */
export class CloudScenario {
  /**
   * @param secrets - the secrets service's scenario controls (`doubles.secrets`).
   * @param mountPath - the cloud engine's mount path.
   */
  constructor(
    private readonly secrets: MountAccess,
    readonly mountPath = "cloud",
  ) {}

  /**
   * The same controls for another mount of the cloud engine.
   * @example doubles.secrets.mount("team-a/cloud", "cloud"); cloud.at("team-a/cloud").configureRoot();
   */
  at(mountPath: string): CloudScenario {
    return new CloudScenario(this.secrets, mountPath);
  }

  private update<R>(fn: (ctx: EngineContext<CloudMountState>) => R): R {
    return this.secrets.updateMount<CloudMountState, R>(this.mountPath, (ctx) => {
      try {
        return fn(ctx);
      } catch (error) {
        if (error instanceof CloudApiError) throw new UsageError(`cloud: ${error.message}`);
        throw error;
      }
    });
  }

  private read<R>(fn: (ctx: EngineContext<CloudMountState>) => R): R {
    return this.secrets.readMount<CloudMountState, R>(this.mountPath, fn);
  }

  /**
   * Creates a fresh access key for an IAM user (default: the account's root user, created if
   * missing) and writes `config/root` with it, as an operator would. A previous root key of the
   * same user is deleted first.
   * @returns the root key pair.
   * @throws {UsageError} when nothing is mounted at the controls' mount path, or the user already has two
   *   access keys (the provider's quota).
   * @example
   * const root = cloud.configureRoot({ region: "eu-west-1", usernameTemplate: "{{ random 20 }}" });
   * root.accessKeyId; // "AKIA..." - GET /cloud/config/root answers it
   */
  configureRoot(options: ConfigureRootOptions = {}): AccessKeyPair {
    return this.update((ctx) => {
      const account = ctx.mount.account;
      const userName = options.userName ?? account.rootUserName;
      if (account.users[userName] === undefined) createUser(account, { userName, path: "/", permissionsBoundaryArn: "", origin: userName === account.rootUserName ? "root" : "scenario" }, ctx.now, ctx.ids);
      const previous = ctx.mount.root?.accessKey;
      if (previous && findKeyOwner(account, previous)?.user.userName === userName) deleteAccessKey(account, userName, previous);
      const key = createAccessKey(account, userName, ctx.now, ctx.ids);
      writeRootConfig(ctx, {
        accessKey: key.accessKeyId,
        secretKey: key.secretAccessKey,
        ...(options.region === undefined ? {} : { region: options.region }),
        ...(options.usernameTemplate === undefined ? {} : { usernameTemplate: options.usernameTemplate }),
      });
      return { accessKeyId: key.accessKeyId, secretAccessKey: key.secretAccessKey };
    });
  }

  /**
   * The name of the IAM user that owns root credentials the account has not seen before.
   * @example cloud.createAccessKey(cloud.rootUserName()); // a second key: rotate-root now fails
   */
  rootUserName(): string {
    return this.read((ctx) => ctx.mount.account.rootUserName);
  }

  /**
   * The IAM user owning the configured root key, if the account knows it (a copy).
   * @example cloud.rootUser()?.accessKeyIds // ["AKIA..."] - after rotate-root, only the new key
   */
  rootUser(): IamUserView | undefined {
    return this.read((ctx) => {
      const key = ctx.mount.root?.accessKey;
      const owner = key ? findKeyOwner(ctx.mount.account, key) : undefined;
      return owner ? view(owner.user) : undefined;
    });
  }

  /**
   * Sets the simulated account id (12 digits) used in the ARNs of users created afterwards and of
   * federated users.
   * @throws {UsageError} when `accountId` is not 12 digits.
   * @example cloud.setAccountId("210987654321");
   */
  setAccountId(accountId: string): void {
    if (!/^\d{12}$/.test(accountId)) throw new UsageError(`cloud: an account id has 12 digits, not ${JSON.stringify(accountId)}`);
    this.update((ctx) => {
      ctx.mount.account.accountId = accountId;
    });
  }

  /**
   * Gives the simulated server ambient credentials (environment variables, a shared credentials
   * file, an instance or task role), used when `config/root` has no keys. With several sources the
   * spec's precedence picks one: environment, then shared credentials file, then instance role
   * (static `config/root` keys always come first). `null` or `[]` removes them.
   * @param sources - one source, several, or `null`.
   * @throws {UsageError} for a source name that is not one of the three.
   * @example
   * cloud.setServerCredentials(["instance_role", "environment"]);
   * cloud.credentialSource(); // "environment" (until config/root gets keys: then "static")
   */
  setServerCredentials(sources: ServerCredentialSource | readonly ServerCredentialSource[] | null): void {
    const list = sources === null ? [] : typeof sources === "string" ? [sources] : [...sources];
    for (const source of list) {
      if (!SERVER_CREDENTIAL_PRECEDENCE.includes(source)) {
        throw new UsageError(`cloud: unknown server credential source ${JSON.stringify(source)} (use ${SERVER_CREDENTIAL_PRECEDENCE.map((s) => JSON.stringify(s)).join(", ")})`);
      }
    }
    this.update((ctx) => {
      ctx.mount.account.serverCredentials = SERVER_CREDENTIAL_PRECEDENCE.filter((source) => list.includes(source));
    });
  }

  /**
   * Where the engine's provider calls take their credentials from right now: `"static"` when
   * `config/root` has keys, else the server's highest ambient source, else `null` (calls then fail
   * with `NoCredentialProviders`).
   * @example cloud.configureRoot(); cloud.credentialSource() // "static"
   */
  credentialSource(): "static" | ServerCredentialSource | null {
    return this.read((ctx) => {
      if (ctx.mount.root !== null && ctx.mount.root.accessKey !== "") return "static";
      return ambientCredentialSource(ctx.mount.account) ?? null;
    });
  }

  /**
   * Sets the simulated server's region environment (`AWS_REGION` / `AWS_DEFAULT_REGION`): provider
   * calls use it when `config/root` names no `region`. `null` or `""` removes it (calls then go
   * to `us-east-1`).
   * @example cloud.setServerRegion("eu-central-1"); cloud.region() // "eu-central-1" unless config/root has a region
   */
  setServerRegion(region: string | null): void {
    this.update((ctx) => {
      ctx.mount.account.serverRegion = region ?? "";
    });
  }

  /**
   * The region the engine's provider calls go to now: `config/root`'s `region`, else the server's
   * region environment, else `us-east-1` (a read of `config/root` answers only what was written).
   * STS credentials record it too (`credential(accessKeyId).region`).
   * @example cloud.region() // "us-east-1" on a fresh mount
   */
  region(): string {
    return this.read((ctx) => providerRegion(ctx.mount));
  }

  /**
   * How long a root key made by `rotate-root` takes to work on the simulator clock (provider calls
   * fail with `InvalidClientTokenId` meanwhile); default 0.
   * @param delay - a duration string (`"10s"`) or ms.
   * @throws {UsageError} for something that is not a duration.
   * @example cloud.setRootKeyPropagation("10s"); // POST rotate-root, then creds fail for 10 s
   */
  setRootKeyPropagation(delay: Duration): void {
    const ms = parseDuration(delay);
    this.update((ctx) => {
      ctx.mount.account.keyPropagationMs = ms;
    });
  }

  /**
   * Creates an IAM user (for static roles, or to own root keys).
   * @param options.path - the user's path, default `/`.
   * @param options.accessKeys - how many access keys to create (0 to 2), default 0.
   * @returns the user and its keys' pairs.
   * @throws {UsageError} when the user exists, the name is not a valid IAM user name (1 to 64 of
   *   `[\w+=,.@-]`), or more than two keys are asked for.
   * @example cloud.createIamUser("app-user", { accessKeys: 2 }).keys.length // 2
   */
  createIamUser(userName: string, options: { path?: string; accessKeys?: number } = {}): { user: IamUserView; keys: AccessKeyPair[] } {
    const count = options.accessKeys ?? 0;
    return this.update((ctx) => {
      const user = createUser(ctx.mount.account, { userName, path: options.path ?? "/", permissionsBoundaryArn: "", origin: "scenario" }, ctx.now, ctx.ids);
      const keys: AccessKeyPair[] = [];
      for (let i = 0; i < count; i++) {
        const key = createAccessKey(ctx.mount.account, userName, ctx.now, ctx.ids);
        keys.push({ accessKeyId: key.accessKeyId, secretAccessKey: key.secretAccessKey });
      }
      return { user: view(user), keys };
    });
  }

  /**
   * Adds an access key to an IAM user (a user has at most two).
   * @param pair - a fixed key pair; default a fresh seeded one.
   * @throws {UsageError} when the user does not exist or already has two keys, or `pair`'s key id
   *   is already (or was once) a key of the account.
   * @example cloud.createAccessKey("app-user").accessKeyId // "AKIA..."
   */
  createAccessKey(userName: string, pair?: AccessKeyPair): AccessKeyPair {
    return this.update((ctx) => {
      if (pair === undefined) {
        const key = createAccessKey(ctx.mount.account, userName, ctx.now, ctx.ids);
        return { accessKeyId: key.accessKeyId, secretAccessKey: key.secretAccessKey };
      }
      const user = ctx.mount.account.users[userName];
      if (user === undefined) throw new UsageError(`cloud: no IAM user ${JSON.stringify(userName)}`);
      if (user.accessKeys.length >= 2) throw new UsageError(`cloud: IAM user ${JSON.stringify(userName)} already has two access keys`);
      const account = ctx.mount.account;
      if (findKeyOwner(account, pair.accessKeyId) !== undefined || wasDeleted(account, pair.accessKeyId) || account.sessions[pair.accessKeyId] !== undefined) {
        throw new UsageError(`cloud: access key ${JSON.stringify(pair.accessKeyId)} already exists or existed in the account`);
      }
      holdAccessKey(account, user, { ...pair, createdAt: ctx.now, usableFrom: ctx.now });
      return pair;
    });
  }

  /**
   * Deletes an access key of an IAM user; the provider refuses it from then on.
   * @throws {UsageError} when the user or the key does not exist.
   * @example cloud.deleteAccessKey(cloud.rootUserName(), root.accessKeyId); // creds now fail with InvalidClientTokenId
   */
  deleteAccessKey(userName: string, accessKeyId: string): void {
    this.update((ctx) => deleteAccessKey(ctx.mount.account, userName, accessKeyId));
  }

  /**
   * Deletes an IAM user and its keys (e.g. to make a static role's rotation fail).
   * @throws {UsageError} when there is no such user.
   * @example cloud.deleteIamUser("app-user"); // the next rotation of its static role fails and retries every 10 s
   */
  deleteIamUser(userName: string): void {
    this.update((ctx) => {
      if (!deleteUser(ctx.mount.account, userName)) throw new UsageError(`cloud: no IAM user ${JSON.stringify(userName)}`);
    });
  }

  /**
   * An IAM user (a copy), or undefined.
   * @example cloud.iamUser("app-user")?.accessKeyIds // oldest first
   */
  iamUser(userName: string): IamUserView | undefined {
    return this.read((ctx) => {
      const user = ctx.mount.account.users[userName];
      return user === undefined ? undefined : view(user);
    });
  }

  /**
   * Names of every IAM user in the account, sorted (generated users included).
   * @example cloud.iamUserNames() // ["secrets-root", "secrets-root-deploy-1704067200-..."]
   */
  iamUserNames(): string[] {
    return this.read((ctx) => Object.keys(ctx.mount.account.users).sort());
  }

  /**
   * Creates (or replaces) an IAM group whose policies filter STS credentials of roles listing it
   * in `iam_groups` (IAM users simply join it).
   * @throws {UsageError} when a policy document is not JSON.
   * @example cloud.createGroup("auditors", { policyArns: ["arn:aws:iam::aws:policy/ReadOnlyAccess"] });
   */
  createGroup(name: string, policies: { policyDocuments?: readonly string[]; policyArns?: readonly string[] } = {}): void {
    for (const document of policies.policyDocuments ?? []) {
      try {
        JSON.parse(document);
      } catch {
        throw new UsageError(`cloud: group ${JSON.stringify(name)}: a policy document must be JSON`);
      }
    }
    this.update((ctx) => {
      ctx.mount.account.groups[name] = { name, inlinePolicies: [...(policies.policyDocuments ?? [])], policyArns: [...(policies.policyArns ?? [])] };
    });
  }

  /**
   * Declares an IAM role: its maximum session duration (provider range 1h to 12h, default 1h) and
   * whether the engine may assume it. Undeclared role ARNs are assumable for up to 12 hours.
   * @throws {UsageError} for a maximum session duration outside 1h..12h.
   * @example cloud.declareRole("arn:aws:iam::123456789012:role/Deployer", { maxSessionDuration: "1h" }); // ttl 2h -> 400
   */
  declareRole(roleArn: string, options: { maxSessionDuration?: Duration; assumable?: boolean } = {}): void {
    const max = options.maxSessionDuration === undefined ? 3600 : seconds(options.maxSessionDuration);
    if (max < 3600 || max > 43_200) throw new UsageError(`cloud: a role's maximum session duration is 1h to 12h, not ${max}s`);
    this.update((ctx) => {
      ctx.mount.account.roles[roleArn] = { arn: roleArn, maxSessionDuration: max, assumable: options.assumable ?? true };
    });
  }

  /**
   * Creates or updates a role (`roles/:name`) with the engine's own rules (the same validation and
   * messages as a write through the API).
   * @throws {UsageError} when nothing is mounted there, or the engine refuses the role (e.g.
   *   `must specify role_arns with assumed_role credential_type`).
   * @example cloud.writeRole("deploy", { credentialType: "iam_user", policyArns: ["arn:aws:iam::aws:policy/ReadOnlyAccess"] });
   */
  writeRole(name: string, options: CloudRoleOptions): void {
    const { policyDocument, defaultStsTtl, maxStsTtl, ...rest } = options;
    const input: RoleInput = {
      ...rest,
      ...(policyDocument === undefined ? {} : { policyDocument: typeof policyDocument === "string" ? policyDocument : JSON.stringify(policyDocument) }),
      ...(defaultStsTtl === undefined ? {} : { defaultStsTtl: seconds(defaultStsTtl) }),
      ...(maxStsTtl === undefined ? {} : { maxStsTtl: seconds(maxStsTtl) }),
    };
    this.update((ctx) => writeRole(ctx, name, input));
  }

  /**
   * A role (a copy; an entry of an earlier version upgraded), or undefined.
   * @example cloud.role("deploy")?.credentialTypes // ["iam_user"]
   */
  role(name: string): CloudRoleView | undefined {
    return this.read((ctx) => {
      const role = readRole(ctx.mount, name);
      if (role === undefined) return undefined;
      return {
        credentialTypes: [...role.credentialTypes],
        roleArns: [...role.roleArns],
        policyArns: [...role.policyArns],
        policyDocument: role.policyDocument,
        iamGroups: [...role.iamGroups],
        iamTags: { ...role.iamTags },
        defaultStsTtl: role.defaultStsTtl,
        maxStsTtl: role.maxStsTtl,
        userPath: role.userPath,
        permissionsBoundaryArn: role.permissionsBoundaryArn,
      };
    });
  }

  /**
   * Creates or updates a static role (`static-roles/:name`): an existing IAM user whose access key
   * the engine rotates every `rotationPeriod` (at least 1 minute). Creating it makes the user's
   * first managed key and schedules the rotation, as a write through the API does; root
   * credentials (or server credentials) must be configured first.
   * @throws {UsageError} when the user does not exist, the period is under a minute, or the
   *   provider refuses the engine's credentials.
   * @example cloud.createIamUser("app-user"); cloud.writeStaticRole("app", { username: "app-user", rotationPeriod: "24h" });
   */
  writeStaticRole(name: string, options: { readonly username?: string; readonly rotationPeriod?: Duration }): StaticRoleView {
    this.update((ctx) =>
      writeStaticRole(ctx, name, {
        ...(options.username === undefined ? {} : { username: options.username }),
        ...(options.rotationPeriod === undefined ? {} : { rotationPeriod: seconds(options.rotationPeriod) }),
      }),
    );
    return this.staticRole(name) as StaticRoleView;
  }

  /**
   * Stores a role as an earlier version of the service did: raw inline policy JSON or an ARN. Reads
   * upgrade it; data that cannot be understood shows as `invalid_data`.
   * @example cloud.seedLegacyRole("old", "not a policy"); // GET /cloud/roles/old -> data.invalid_data
   */
  seedLegacyRole(name: string, raw: string): void {
    this.update((ctx) => {
      delete ctx.mount.roles[name];
      ctx.mount.legacyRoles[name] = raw;
    });
  }

  /**
   * What the simulated provider makes of an access key id now: an IAM user's key, a live STS
   * session (with its ARN, expiry in ms since the epoch, policies and region), or undefined
   * (unknown, deleted, expired).
   * @example cloud.credential(creds.data.access_key) // { kind: "iam_user", userName, usable: true }
   */
  credential(accessKeyId: string): CredentialStatus | undefined {
    return this.read((ctx) => credentialStatus(ctx.mount.account, accessKeyId, ctx.now));
  }

  /**
   * A static role's rotation state (next rotation in ms since the epoch, last rotation error), or
   * undefined.
   * @example cloud.staticRole("app")?.rotatesAt // Date.UTC(2024, 0, 2) for a 24h period created at the clock's start
   */
  staticRole(name: string): StaticRoleView | undefined {
    return this.read((ctx) => {
      const role = ctx.mount.staticRoles[name];
      if (role === undefined) return undefined;
      return { username: role.username, rotationPeriod: role.rotationPeriod, accessKeyId: role.credential.accessKeyId, rotatesAt: role.credential.rotatesAt, lastRotationError: role.lastRotationError };
    });
  }

  /**
   * A fresh, unregistered key pair in the provider's format (for `config/root` bodies); the account
   * adopts it into its root user on first use.
   * @example const { accessKeyId, secretAccessKey } = cloud.newKeyPair();
   */
  newKeyPair(): AccessKeyPair {
    return this.update((ctx) => ({ accessKeyId: longTermAccessKeyId(ctx.ids), secretAccessKey: secretAccessKey(ctx.ids) }));
  }
}

/**
 * The cloud engine's scenario controls of a mount (default `/cloud`).
 * @example cloudScenario(doubles.secrets).configureRoot()
 */
export function cloudScenario(secrets: MountAccess, mountPath = "cloud"): CloudScenario {
  return new CloudScenario(secrets, mountPath);
}

/** What {@link installCloudDefaults} set up. */
export interface CloudDefaults {
  /** The root access key id (`config/root`). */
  readonly rootAccessKey: string;
  /** Role names by credential type. */
  readonly roles: { readonly iamUser: string; readonly assumedRole: string; readonly federationToken: string };
}

/**
 * A ready cloud mount for the dev server or a quick test: root credentials of a simulated IAM user,
 * and one role per credential type - `deploy` (`iam_user`, AWS `ReadOnlyAccess`), `assume`
 * (`assumed_role` of `arn:aws:iam::123456789012:role/Deployer`) and `federate`
 * (`federation_token` limited to S3 reads).
 * @example installCloudDefaults(doubles.secrets).roles.iamUser // "deploy"
 */
export function installCloudDefaults(secrets: MountAccess, mountPath = "cloud"): CloudDefaults {
  const cloud = new CloudScenario(secrets, mountPath);
  const root = cloud.configureRoot();
  secrets.updateMount<CloudMountState, void>(mountPath, (ctx) => {
    writeRole(ctx, "deploy", { credentialType: "iam_user", policyArns: ["arn:aws:iam::aws:policy/ReadOnlyAccess"] });
    writeRole(ctx, "assume", { credentialType: "assumed_role", roleArns: [`arn:aws:iam::${ctx.mount.account.accountId}:role/Deployer`] });
    writeRole(ctx, "federate", {
      credentialType: "federation_token",
      policyDocument: '{"Version":"2012-10-17","Statement":[{"Effect":"Allow","Action":"s3:Get*","Resource":"*"}]}',
    });
  });
  return { rootAccessKey: root.accessKeyId, roles: { iamUser: "deploy", assumedRole: "assume", federationToken: "federate" } };
}
