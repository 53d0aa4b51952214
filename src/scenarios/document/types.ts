/**
 * The scenario document: a world described as data (JSON or YAML) instead of TypeScript calls.
 * Each section maps onto the scenario controls a test calls (`doubles.runs`, `doubles.accessControl`,
 * `doubles.secrets` and the SSH and cloud engine helpers); a document refers to its own fixtures by
 * name (workspaces by `organization/name` or `name`, users by username, teams and policies by name,
 * tokens by the `name` the document gives them). The JSON Schema shipped as
 * `infra-doubles/scenario.schema.json` is generated from these types (`npm run schema`).
 *
 * Spec: the fixtures the specs leave to operators (run orchestration "Authentication", access
 * control "Tokens", "Auth methods", secrets "Tokens", "SSH engine", "Health"). Durations are ms or
 * duration strings (`"30s"`, `"1h30m"`).
 */
import type { ServiceAccountIdentityInput } from "../../simulator/access-control/auth-methods.js";
import type { BindingRuleInput } from "../../simulator/access-control/binding-rules.js";
import type { PolicyInput } from "../../simulator/access-control/fixtures.js";
import type { NodeIdentityInput, ServiceIdentityInput } from "../../simulator/access-control/links.js";
import type { AccessControlSettings } from "../../simulator/access-control/state.js";
import type { Duration } from "../../simulator/kernel/duration.js";
import type { FaultDefinition } from "../faults/fault-definition.js";
import type { PhaseName } from "../../simulator/runs/outcomes.js";
import type { PermissionLevel, UploadOutcome } from "../../simulator/runs/state.js";
import type { NodeLicense, NodeState } from "../../simulator/secrets/node-state.js";
import type { LinkRef, ScenarioAuthMethodInput } from "../access-control/scenario.js";
import type { OutcomeScript } from "../runs/runs-scenario.js";
import type { CaRoleOptions, OtpRoleOptions } from "../secrets/ssh/ssh-scenario.js";
import type { BackendKeyInput, CreateTokenOptions, ManagedKeyOptions } from "../secrets/secrets-scenario.js";
import type { CloudRoleOptions } from "../secrets/cloud/cloud-scenario.js";

/**
 * A scenario document: fixtures per service and a timeline.
 * @example
 * // YAML
 * // runs:
 * //   organizations: [{ name: acme }]
 * //   workspaces: [{ name: prod, organization: acme }]
 * // timeline:
 * //   - at: 5m
 * //     expect: { path: clock.now, equals: "2024-01-01T00:05:00.000Z" }
 */
export interface ScenarioDocument {
  /** Where the schema lives, for editors (ignored). */
  readonly $schema?: string;
  /** What the scenario is about (printed by `infra-doubles run`). */
  readonly description?: string;
  readonly runs?: RunsFixtures;
  readonly accessControl?: AccessControlFixtures;
  readonly secrets?: SecretsFixtures;
  /** Faults added after the fixtures (`doubles.faults.add`): which requests fail, how, when and how often. */
  readonly faults?: readonly ScenarioFault[];
  /** Steps at simulated times, played by `infra-doubles run` or `loaded.play()`. */
  readonly timeline?: readonly TimelineStep[];
  /**
   * A service mutant id (`infra-doubles mutate --list`): the world is built as that mutant, the
   * faithful fake with one deliberate change. Read when the doubles are built
   * (`createDoubles({ scenario })`, `infra-doubles serve --scenario FILE`, a world posted to
   * `/_sim/worlds`); loaded into doubles built otherwise, it must name their mutant. A survivor of
   * `infra-doubles mutate` prints this line.
   */
  readonly mutant?: string;
}

// ---- run orchestration ------------------------------------------------------------------------

/** Run orchestration fixtures, made in this order: organizations, workspaces, users, teams, tokens, then settings. */
export interface RunsFixtures {
  readonly organizations?: readonly RunsOrganizationFixture[];
  readonly workspaces?: readonly RunsWorkspaceFixture[];
  readonly users?: readonly RunsUserFixture[];
  readonly teams?: readonly RunsTeamFixture[];
  readonly tokens?: readonly RunsTokenFixture[];
  /** Outcome defaults of every run (`runs.setOutcome`). */
  readonly outcome?: OutcomeScript;
  /** Force-cancel cool-off (`runs.setCoolOff`, default 10 s). */
  readonly coolOff?: Duration;
  /** Whether uploads succeed (`runs.setUploadOutcome`). */
  readonly uploadOutcome?: UploadOutcome;
}

/** An organization (`runs.addOrganization`). */
export interface RunsOrganizationFixture {
  readonly name: string;
  readonly email?: string;
  /** The organization's `cost-estimation-enabled` setting (default false): its runs pass through cost estimation. */
  readonly costEstimationEnabled?: boolean;
}

/** A workspace (`runs.addWorkspace`); other fixtures name it `organization/name` or `name`. */
export interface RunsWorkspaceFixture {
  readonly name: string;
  /** The organization's name. */
  readonly organization: string;
  readonly autoApply?: boolean;
  readonly vcsRepo?: { readonly identifier: string; readonly branch?: string; readonly provider?: string; readonly htmlUrl?: string };
  readonly engineVersion?: string;
  /** Outcome defaults of this workspace's runs. */
  readonly outcome?: OutcomeScript;
}

/** A user (`runs.addUser`); other fixtures name them by username. */
export interface RunsUserFixture {
  readonly username: string;
  readonly email?: string | null;
  readonly siteAdmin?: boolean;
  /** Workspace (`organization/name` or `name`) -> level. */
  readonly permissions?: Readonly<Record<string, PermissionLevel>>;
  /** Organization name -> level on every workspace there. */
  readonly organizationAccess?: Readonly<Record<string, PermissionLevel>>;
}

/** A team (`runs.addTeam`). */
export interface RunsTeamFixture {
  readonly name: string;
  readonly organization: string;
  /** Usernames. */
  readonly members?: readonly string[];
  /** Workspace -> level. */
  readonly permissions?: Readonly<Record<string, PermissionLevel>>;
  readonly organizationAccess?: PermissionLevel | null;
}

/**
 * A token: exactly one of `user` (a username), `team` (a team name), `organization` or
 * `siteAdmin` (the username of a site administrator made for it).
 */
export interface RunsTokenFixture {
  /** The document's name for it (the timeline and the loaded result use it). */
  readonly name: string;
  readonly user?: string;
  readonly team?: string;
  readonly organization?: string;
  readonly siteAdmin?: string;
  /** A fixed bearer value (default: seeded). */
  readonly token?: string;
}

// ---- access control ---------------------------------------------------------------------------

/** Access-control fixtures, made in this order: settings, namespaces, policies, roles, auth methods, binding rules, tokens. */
export interface AccessControlFixtures {
  /** `accessControl.configure(...)`: namespaces, datacenters, default policy, TTL bounds (ms). */
  readonly settings?: AccessControlSettingsPatch;
  readonly namespaces?: readonly AccessControlNamespaceFixture[];
  readonly policies?: readonly PolicyInput[];
  readonly roles?: readonly AccessControlRoleFixture[];
  readonly authMethods?: readonly AccessControlAuthMethodFixture[];
  readonly bindingRules?: readonly AccessControlBindingRuleFixture[];
  readonly tokens?: readonly AccessControlTokenFixture[];
}

/** Settings to change (`accessControl.configure`); the rest keep their value. */
export type AccessControlSettingsPatch = Partial<AccessControlSettings>;

/** An enterprise namespace (`accessControl.createNamespace`). */
export interface AccessControlNamespaceFixture {
  readonly name: string;
  readonly description?: string;
  readonly defaultPolicies?: readonly LinkRef[];
  readonly defaultRoles?: readonly LinkRef[];
}

/** A role (`accessControl.createRole`): policies by name or link. */
export interface AccessControlRoleFixture {
  readonly name: string;
  readonly description?: string;
  readonly policies?: readonly LinkRef[];
  readonly serviceIdentities?: readonly ServiceIdentityInput[];
  readonly nodeIdentities?: readonly NodeIdentityInput[];
  readonly namespace?: string;
  readonly id?: string;
}

/** An identity an auth method accepts (`accessControl.registerBearerToken`): a service account or claims. */
export interface AccessControlIdentityFixture {
  /** What a client sends as `BearerToken` to `POST /acl/login`. */
  readonly bearerToken: string;
  /** For `kubernetes` methods. */
  readonly serviceAccount?: ServiceAccountIdentityInput;
  /** For `jwt` / `oidc` methods: raw claims. */
  readonly claims?: Readonly<Record<string, unknown>>;
}

/** An auth method (`accessControl.createAuthMethod`) and the identities it accepts. */
export interface AccessControlAuthMethodFixture extends ScenarioAuthMethodInput {
  readonly identities?: readonly AccessControlIdentityFixture[];
}

/** A binding rule (`accessControl.createBindingRule`). */
export interface AccessControlBindingRuleFixture extends BindingRuleInput {
  readonly authMethod: string;
  readonly bindType: "service" | "node" | "role";
  readonly bindName: string;
}

/** A token (`accessControl.createToken`), made by the bootstrap token. */
export interface AccessControlTokenFixture {
  /** The document's name for it. */
  readonly name: string;
  readonly description?: string;
  readonly policies?: readonly LinkRef[];
  readonly roles?: readonly LinkRef[];
  readonly serviceIdentities?: readonly (string | ServiceIdentityInput)[];
  readonly nodeIdentities?: readonly NodeIdentityInput[];
  readonly local?: boolean;
  /** Lifetime (1 minute to 24 hours). */
  readonly expirationTtl?: Duration;
  /** Absolute expiry: RFC 3339 or ms since the epoch. */
  readonly expirationTime?: string | number;
  readonly accessorId?: string;
  readonly secretId?: string;
  readonly namespace?: string;
}

// ---- secrets ----------------------------------------------------------------------------------

/**
 * Secrets fixtures, made in this order: namespaces, mounts, policies, tokens, SSH and cloud engines,
 * key backends and the server environment, managed keys, MFA methods, auth mounts, identity
 * entities and groups, login enforcements, node state.
 */
export interface SecretsFixtures {
  /** Namespace paths (`ns1`, `ns1/ns2`). */
  readonly namespaces?: readonly string[];
  readonly mounts?: readonly SecretsMountFixture[];
  readonly policies?: readonly SecretsPolicyFixture[];
  readonly tokens?: readonly SecretsTokenFixture[];
  /** SSH engine mounts' roles, keys and CA. */
  readonly ssh?: readonly SshFixture[];
  /** Cloud engine mounts' account and root credentials. */
  readonly cloud?: readonly CloudFixture[];
  /** Keys held by simulated backends (`secrets.addBackendKey`). */
  readonly backendKeys?: readonly BackendKeyFixture[];
  readonly keyRings?: readonly { readonly project: string; readonly region: string; readonly keyRing: string }[];
  readonly pkcs11Libraries?: readonly string[];
  /** What the server environment provides when managed-key writes leave credentials out (`secrets.setServerEnvironment`). */
  readonly serverEnvironment?: SecretsServerEnvironmentFixture;
  /** Managed keys (`secrets.writeManagedKey`), after the backends' keys, key rings and libraries. */
  readonly managedKeys?: readonly ManagedKeyFixture[];
  /** MFA methods; login enforcements name them by `name`. */
  readonly mfaMethods?: readonly SecretsMfaMethodFixture[];
  /** Auth method mounts; login enforcements name them by `path`. */
  readonly authMounts?: readonly SecretsAuthMountFixture[];
  readonly identityEntities?: readonly SecretsIdentityFixture[];
  readonly identityGroups?: readonly SecretsIdentityFixture[];
  /** MFA login enforcements (`secrets.writeLoginEnforcement`), naming the fixtures above by name. */
  readonly loginEnforcements?: readonly LoginEnforcementFixture[];
  /** The node's state (health codes). */
  readonly nodeState?: NodeState | SecretsNodeStateFixture;
}

/** An MFA method (`secrets.addMfaMethod`). */
export interface SecretsMfaMethodFixture {
  readonly type: "totp" | "duo" | "okta" | "pingid";
  readonly name?: string;
  readonly namespace?: string;
  readonly id?: string;
}

/** Credentials the simulated server's environment provides (`secrets.setServerEnvironment`). */
export interface SecretsServerEnvironmentFixture {
  readonly kmsaAccessKey?: string;
  readonly kmsaSecretKey?: string;
  readonly kmsaRegion?: string;
  /** A `kmsb` managed identity is available (client id and secret may be left out). */
  readonly kmsbManagedIdentity?: boolean;
  readonly kmscCredentials?: string;
}

/**
 * A managed key (`secrets.writeManagedKey`): name, type, flags, and the type's parameters under
 * their spec names, e.g. `{ name: hsm-key, type: pkcs11, parameters: { library: hsm, slot: "0",
 * pin: "1234", key_label: signing, mechanism: "0x0001", key_bits: 2048 } }`.
 */
export interface ManagedKeyFixture extends ManagedKeyOptions {
  /** Lowercase, unique across types. */
  readonly name: string;
  readonly type: "pkcs11" | "kmsa" | "kmsb" | "kmsc";
}

/**
 * An MFA login enforcement (`secrets.writeLoginEnforcement`). Fixtures are named as the document
 * names them (an id or accessor works too): `mfaMethods` by method `name`, `authMounts` by mount
 * `path`, `identityGroups` and `identityEntities` by `name`. At least one of `authMounts`,
 * `authMethodTypes`, `identityGroups`, `identityEntities`.
 */
export interface LoginEnforcementFixture {
  readonly name: string;
  /** Namespace path (`"ns1"`); default root. */
  readonly namespace?: string;
  readonly mfaMethods: readonly string[];
  readonly authMounts?: readonly string[];
  /** Auth method types (`userpass`, `oidc`, ...) that have a mount. */
  readonly authMethodTypes?: readonly string[];
  readonly identityGroups?: readonly string[];
  readonly identityEntities?: readonly string[];
}

/** An auth method mount (`secrets.addAuthMount`). */
export interface SecretsAuthMountFixture {
  readonly type: string;
  readonly path?: string;
  readonly namespace?: string;
  readonly accessor?: string;
}

/** An identity entity or group (`secrets.addIdentityEntity`, `addIdentityGroup`). */
export interface SecretsIdentityFixture {
  readonly name: string;
  readonly namespace?: string;
  readonly id?: string;
}

/** The node's state with its details (`secrets.setNodeState`). */
export interface SecretsNodeStateFixture {
  readonly state: NodeState;
  readonly unstable?: boolean;
  readonly version?: string;
  readonly clusterName?: string;
  readonly replicationPerformanceMode?: string;
  readonly license?: NodeLicense | null;
}

/** A mount (`secrets.mount`): `ssh` or `cloud`. The defaults `ssh/` and `cloud/` exist already. */
export interface SecretsMountFixture {
  readonly path: string;
  readonly type: string;
  readonly description?: string;
  readonly allowedManagedKeys?: readonly string[];
}

/** A policy (`secrets.createPolicy`): HCL text, or path -> capabilities. */
export interface SecretsPolicyFixture {
  readonly name: string;
  readonly rules: string | Readonly<Record<string, readonly string[]>>;
}

/** A token (`secrets.createToken`). */
export interface SecretsTokenFixture extends CreateTokenOptions {
  /** The document's name for it. */
  readonly name: string;
}

/** An SSH engine mount's fixtures (`sshScenario(doubles.secrets, mount)`). */
export interface SshFixture {
  /** Mount path (default `ssh`). */
  readonly mount?: string;
  /** Generate the CA from the seed (`keyType`: `ssh-rsa`, `ec`, `ed25519`), or import a key pair. */
  readonly ca?: { readonly keyType?: string; readonly keyBits?: number } | { readonly privateKey: string; readonly publicKey: string };
  /** Role name -> OTP role options. */
  readonly otpRoles?: Readonly<Record<string, OtpRoleOptions>>;
  /** Role name -> CA role options. */
  readonly caRoles?: Readonly<Record<string, CaRoleOptions>>;
  /** Key name -> private key (for dynamic roles). */
  readonly keys?: Readonly<Record<string, string>>;
  readonly zeroAddressRoles?: readonly string[];
  /** One-time passwords' lease duration (`null`: the system default). */
  readonly otpTtl?: Duration | null;
}

/**
 * A cloud engine mount's fixtures (`cloudScenario(doubles.secrets, mount)`), made in this order:
 * account id, server credentials and region, IAM users, groups, account roles, root, roles, static
 * roles.
 */
export interface CloudFixture {
  /** Mount path (default `cloud`). */
  readonly mount?: string;
  /** The simulated account's 12-digit id. */
  readonly accountId?: string;
  /** Root credentials, as an operator writes `config/root`. */
  readonly root?: { readonly userName?: string; readonly region?: string; readonly usernameTemplate?: string };
  readonly iamUsers?: readonly { readonly userName: string; readonly path?: string; readonly accessKeys?: number }[];
  /** Roles that exist in the account (for `assumed_role` credentials). */
  readonly accountRoles?: readonly { readonly roleArn: string; readonly maxSessionDuration?: Duration; readonly assumable?: boolean }[];
  /** IAM groups (`cloud.createGroup`), for roles' `iamGroups`. */
  readonly groups?: readonly { readonly name: string; readonly policyDocuments?: readonly string[]; readonly policyArns?: readonly string[] }[];
  /** Ambient credentials of the simulated server (`cloud.setServerCredentials`), used when `root` is not configured. */
  readonly serverCredentials?: readonly ("environment" | "shared_credentials_file" | "instance_role")[];
  /** The server's region environment (`cloud.setServerRegion`). */
  readonly serverRegion?: string;
  /** Role name -> role (`cloud.writeRole`). */
  readonly roles?: Readonly<Record<string, CloudRoleOptions>>;
  /** Static role name -> an IAM user (define it under `iamUsers`) and its key's rotation period (`cloud.writeStaticRole`). */
  readonly staticRoles?: Readonly<Record<string, { readonly username: string; readonly rotationPeriod: Duration }>>;
}

/** A key in a simulated backend: generated from the seed (`algorithm`) or a PEM private key. */
export interface BackendKeyFixture {
  readonly where: BackendKeyInput;
  readonly key: { readonly algorithm: "rsa"; readonly bits: number } | { readonly algorithm: "ec"; readonly curve: string } | { readonly algorithm: "ed25519" } | { readonly pem: string };
}

// ---- faults -----------------------------------------------------------------------------------

/**
 * A fault (`doubles.faults.add`; see `FaultDefinition`): `service`, then `route` or `operation`,
 * then `answer`, `connection` and/or `latency`, and `times`, `after`, `probability`, `from`,
 * `until`. `from` and `until` are durations after the fault is added (`"30s"`) or ISO 8601 times.
 */
export interface ScenarioFault extends Omit<FaultDefinition, "from" | "until" | "service" | "route" | "operation"> {
  /** The service's key: `runs`, `accessControl` or `secrets` (another is refused with the nearest). */
  readonly service: string;
  /**
   * The route as the specs write it (`METHOD /template`, no API prefix), as in `faults.add()`:
   * `POST /runs/:run_id/actions/apply`, `GET /sys/health`; a secrets engine on another mount path
   * with that path (`POST /ssh-prod/creds/:name`). Another name is refused with the nearest valid one.
   */
  readonly route?: string;
  /** The route's operation in the spec's words (`apply run`, `create token`). */
  readonly operation?: string;
  readonly from?: Duration;
  readonly until?: Duration;
}

// ---- timeline ---------------------------------------------------------------------------------

/**
 * One step of the timeline: at most one `at` and exactly one action. Steps run in order; `at` is
 * the simulated time since the document was loaded (`"5m"`) and never goes back.
 */
export interface TimelineStep {
  /** When: time since the load (the clock advances to it first). Absent: right after the previous step. */
  readonly at?: Duration;
  /** A note printed in the transcript. */
  readonly note?: string;
  /** Moves the clock forward by this much (every due move fires). */
  readonly advance?: Duration;
  /** Sets the secrets node's state. */
  readonly nodeState?: NodeState | SecretsNodeStateFixture;
  /** Scripts the next run of a workspace (`runs.nextRun`). */
  readonly nextRun?: NextRunStep;
  /** Changes outcome defaults: simulator-wide, or of a workspace (`runs.setOutcome` / `setWorkspaceOutcome`). */
  readonly outcome?: OutcomeStep;
  /** Queues a run as a user would (`runs.queueRun`). */
  readonly queueRun?: QueueRunStep;
  /** A commit reaches a workspace's repository (`runs.pushCommit`). */
  readonly pushCommit?: PushCommitStep;
  /** Uploads a configuration version as a user would (`runs.uploadConfiguration`); it queues a run unless `autoQueueRuns` is false. */
  readonly uploadConfiguration?: UploadConfigurationStep;
  /** Makes a run's (or a VCS fetch's) next automatic move (`runs.step`): a run by document name or id. */
  readonly step?: string;
  /** Revokes a token now (a runs token: requests bearing it get 401). */
  readonly revoke?: TokenRef;
  /** Advances the clock to a token's expiry (it must have one: runs tokens never expire). */
  readonly expire?: TokenRef;
  /** Grants a user or team a level on a workspace, or takes the grant away (`level: null`) (`runs.grant` / `runs.removeGrant`). */
  readonly grant?: GrantStep;
  /** Injects a fault (`doubles.faults.add`); give it an `id` to clear it later. */
  readonly fault?: ScenarioFault;
  /** Clears a fault by id, or every fault with `"*"`. */
  readonly clearFault?: string;
  /** Checks the state: a path and what it must equal or match. */
  readonly expect?: Expectation;
}

/** A token named by the document, exactly one of: `runs` (a runs token), `accessControl` (an ACL token) or `secrets` (a secrets token). */
export interface TokenRef {
  /** The `name` of a `runs.tokens` fixture. */
  readonly runs?: string;
  /** The `name` of an `accessControl.tokens` fixture. */
  readonly accessControl?: string;
  /** The `name` of a `secrets.tokens` fixture. */
  readonly secrets?: string;
}

/** `grant`: exactly one of `user` (a username) or `team` (a team name in the workspace's organization), a workspace and a level. */
export interface GrantStep {
  /** `organization/name` or `name`. */
  readonly workspace: string;
  readonly user?: string;
  readonly team?: string;
  /** `read`, `plan`, `write` or `admin`; `null` takes the grant away. */
  readonly level: PermissionLevel | null;
}

/** `nextRun`: a workspace and the outcome script of its next run. */
export interface NextRunStep extends OutcomeScript {
  /** `organization/name` or `name`. */
  readonly workspace: string;
}

/** `outcome`: outcome defaults, of one workspace when `workspace` is given. */
export interface OutcomeStep extends OutcomeScript {
  readonly workspace?: string;
}

/** `queueRun`: who queues which run. */
export interface QueueRunStep {
  readonly workspace: string;
  /** The username acting. */
  readonly as: string;
  /** The document's name for the run (expect paths: `runs.runs.<name>`). */
  readonly name?: string;
  readonly message?: string;
  readonly isDestroy?: boolean;
  readonly planOnly?: boolean;
  readonly autoApply?: boolean;
  /** `svc-api` (default) or `svc-ui`. */
  readonly source?: "svc-ui" | "svc-api";
}

/** `uploadConfiguration`: who uploads which files. */
export interface UploadConfigurationStep {
  readonly workspace: string;
  /** The username acting. */
  readonly as: string;
  /** The document's name for the run the upload queues. */
  readonly name?: string;
  /** Path -> content (default: one `main.tf`). */
  readonly files?: Readonly<Record<string, string>>;
  readonly autoQueueRuns?: boolean;
  readonly speculative?: boolean;
}

/** `pushCommit`: a commit (`runs.pushCommit` options; `files` as path -> content). */
export interface PushCommitStep {
  readonly workspace: string;
  readonly branch?: string;
  readonly message?: string;
  readonly sha?: string;
  readonly senderUsername?: string;
  readonly tag?: string | null;
  readonly pullRequest?: { readonly number: number; readonly title?: string; readonly body?: string } | null;
  readonly files?: Readonly<Record<string, string>>;
  readonly fetch?: UploadOutcome;
}

/**
 * An assertion on the state: the value at `path` must `equals` a JSON value (deep equality),
 * `matches` a regular expression (the value as text), or `exists` (not null/absent).
 *
 * Paths: dot-separated names, `[n]` for an array index, `["a/b"]` for names with other characters.
 * Roots: `clock` (`now`, `epochMs`), `runs.workspaces.<workspace>` (with `runs`, newest first,
 * `latestRun`, `queue`, `permissions` by user or team id), `runs.runs.<run name or id>`,
 * `runs.tokens.<name>` (`kind`, `owner`, `description`, `createdAt`; null once revoked), `accessControl.tokens.<name>` (null once
 * expired or deleted), `accessControl.access.<token name>` (`none` / `read` / `write`),
 * `accessControl.policies.<name>`, `accessControl.roles.<name>`, `accessControl.bindingRules`,
 * `secrets.nodeState`, `secrets.tokens.<name>` (null once revoked or expired), `secrets.mounts`,
 * `secrets.leases`, `secrets.ssh.<mount>.roles.<role>`, `secrets.ssh.<mount>.caPublicKey`,
 * `secrets.cloud.<mount>.roles.<name>`, `secrets.cloud.<mount>.staticRoles.<name>` (`accessKeyId`,
 * `rotatesAt`, `lastRotationError`), `secrets.managedKeys.<name>` (the read form),
 * `secrets.loginEnforcements.<name>` (root namespace, wire names),
 * `faults` (the list, as `doubles.faults.list()` shows it), `faults.<id>` (null once cleared).
 * Exactly one of `equals`, `matches` and `exists`.
 * @example { path: 'runs.workspaces["acme/prod"].latestRun.status', equals: "applied" }
 * @example { path: "clock.now", matches: "^2024-01-01T00:05" }
 */
export interface Expectation {
  /** Where to look: `secrets.nodeState`, `runs.workspaces["acme/prod"].latestRun.status`, ... (the roots above). */
  readonly path: string;
  /** Passes when the value at `path` is deep-equal to this JSON value. */
  readonly equals?: unknown;
  /**
   * Passes when this regular expression (RE2 syntax, linear time; unanchored: use `^` and `$`) is
   * found in the value at `path`: a string as is, any other value as its JSON text. An absent value
   * never matches.
   * @minLength 1
   * @examples ["^2024-01-01T00:05", "^(applied|planned_and_finished)$"]
   */
  readonly matches?: string;
  /** `true`: passes when the value at `path` is present and not null; `false`: when it is absent or null. */
  readonly exists?: boolean;
}

/** Phase names of `durations` in outcome scripts (re-exported for schema readers). */
export type ScenarioPhaseName = PhaseName;
