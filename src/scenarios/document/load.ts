/**
 * Loads a {@link ScenarioDocument} into doubles: calls the same scenario controls a TypeScript test
 * calls, in a fixed order, resolving the document's names (workspaces, users, teams, tokens) to the
 * seeded ids the controls return. All or nothing: a document that fails part-way leaves the state
 * as it was.
 */
import type { Simulator } from "../../simulator/kernel/simulator.js";
import { UsageError, isDomainError } from "../../simulator/kernel/errors.js";
import { RUNS } from "../../simulator/runs/errors.js";
import type { RunsState } from "../../simulator/runs/state.js";
import type { AccessControlScenario } from "../access-control/scenario.js";
import type { RunsScenario } from "../runs/runs-scenario.js";
import { cloudScenario } from "../secrets/cloud/cloud-scenario.js";
import type { SecretsScenario } from "../secrets/secrets-scenario.js";
import { sshScenario } from "../secrets/ssh/ssh-scenario.js";
import type { FaultDefinition } from "../faults/fault-definition.js";
import type { FaultSet } from "../faults/fault-set.js";
import { pointer, ScenarioDocumentError } from "./errors.js";
import { playTimeline, type PlayOptions, type ScenarioTranscript } from "./timeline.js";
import type { ScenarioDocument, ScenarioFault, SecretsNodeStateFixture } from "./types.js";
import { validateScenario } from "./validate.js";

/** What a scenario loads into: `Doubles` (the three services' controls, the simulator). */
export interface ScenarioTarget {
  readonly sim: Simulator;
  readonly runs: RunsScenario;
  readonly accessControl: AccessControlScenario;
  readonly secrets: SecretsScenario;
  readonly faults: FaultSet;
}

/**
 * The ids and credentials a document's names resolved to (seeded: the same document and seed give
 * the same values).
 */
export interface ScenarioNames {
  readonly runs: {
    /** `organization/name` -> `ws-...`. */
    readonly workspaces: Record<string, string>;
    /** username -> `user-...`. */
    readonly users: Record<string, string>;
    /** `organization/name` -> `team-...`. */
    readonly teams: Record<string, string>;
    /** token name -> bearer value. */
    readonly tokens: Record<string, string>;
    /** run name (timeline `queueRun` / `uploadConfiguration`) -> `run-...`. */
    readonly runs: Record<string, string>;
  };
  readonly accessControl: {
    /** token name -> its AccessorID and SecretID. */
    readonly tokens: Record<string, { readonly accessorId: string; readonly secretId: string }>;
    /** policy name -> ID. */
    readonly policies: Record<string, string>;
    /** role name -> ID. */
    readonly roles: Record<string, string>;
    /** The bootstrap token (full access). */
    readonly bootstrap: { readonly accessorId: string; readonly secretId: string };
  };
  readonly secrets: {
    /** token name -> the secret to send as `X-Secrets-Token`. */
    readonly tokens: Record<string, string>;
    /** The root token. */
    readonly rootToken: string;
    /** `<mount>` -> the generated SSH CA public key. */
    readonly sshCaPublicKeys: Record<string, string>;
  };
}

/** A loaded document: its names, and its timeline, ready to play. */
export interface LoadedScenario {
  readonly document: ScenarioDocument;
  readonly names: ScenarioNames;
  /** Simulator time when the document was loaded (ms since the epoch): the timeline's `at` counts from here. */
  readonly loadedAt: number;
  /**
   * Plays the timeline (or the steps up to `until`, a time since the load): advances the clock,
   * changes state, checks `expect` steps.
   * @returns the transcript; `ok` is false when an `expect` step failed (playing goes on).
   * @throws {ScenarioDocumentError} (`reference`, `fixture`) when a step names something unknown or is refused.
   */
  play(options?: PlayOptions): ScenarioTranscript;
}

function emptyNames(target: ScenarioTarget): ScenarioNames {
  return {
    runs: { workspaces: {}, users: {}, teams: {}, tokens: {}, runs: {} },
    accessControl: { tokens: {}, policies: {}, roles: {}, bootstrap: target.accessControl.bootstrapToken },
    secrets: { tokens: {}, rootToken: target.secrets.rootToken, sshCaPublicKeys: {} },
  };
}

/** Runs `fn`; a library refusal becomes a {@link ScenarioDocumentError} at `path`. */
export function at<R>(path: readonly (string | number)[], fn: () => R, kind: "fixture" | "reference" = "fixture"): R {
  try {
    return fn();
  } catch (error) {
    if (error instanceof ScenarioDocumentError) throw error;
    if (error instanceof UsageError || isDomainError(error)) {
      throw new ScenarioDocumentError(kind, [{ path: pointer(path), expected: error.message.replace(/^infra-doubles: /, "") }]);
    }
    throw error;
  }
}

function reference(path: readonly (string | number)[], message: string): never {
  throw new ScenarioDocumentError("reference", [{ path: pointer(path), expected: message }]);
}

/** Resolves the document's names against the simulator's state (so a later document can name earlier fixtures too). */
export class NameResolver {
  constructor(
    private readonly target: ScenarioTarget,
    readonly names: ScenarioNames,
  ) {}

  private runsState(): Readonly<RunsState> {
    return this.target.sim.read<RunsState, Readonly<RunsState>>(RUNS, (ctx) => ctx.state);
  }

  /** `organization/name`, `name` (unique) or a `ws-...` id -> the workspace id. */
  workspace(ref: string, path: readonly (string | number)[]): string {
    const state = this.runsState();
    if (state.workspaces[ref] !== undefined) return ref;
    const slash = ref.indexOf("/");
    const matches = Object.values(state.workspaces).filter((w) =>
      slash < 0 ? w.name === ref : w.organization === ref.slice(0, slash) && w.name === ref.slice(slash + 1),
    );
    if (matches.length === 1) return matches[0]?.id ?? "";
    if (matches.length > 1) reference(path, `workspace "${ref}" is ambiguous: name it "organization/name" (${matches.map((w) => `${w.organization}/${w.name}`).join(", ")})`);
    return reference(path, `no workspace "${ref}" (define it under runs.workspaces)`);
  }

  /** A username or `user-...` id -> the user id. */
  user(ref: string, path: readonly (string | number)[]): string {
    const state = this.runsState();
    if (state.users[ref] !== undefined) return ref;
    const user = Object.values(state.users).find((u) => u.username === ref && !u.serviceAccount);
    return user?.id ?? reference(path, `no user "${ref}" (define it under runs.users)`);
  }

  /** A team name (in `organization`) or `team-...` id -> the team id. */
  team(ref: string, organization: string | undefined, path: readonly (string | number)[]): string {
    const state = this.runsState();
    if (state.teams[ref] !== undefined) return ref;
    const teams = Object.values(state.teams).filter((t) => t.name === ref && (organization === undefined || t.organization === organization));
    if (teams.length === 1) return teams[0]?.id ?? "";
    if (teams.length > 1) reference(path, `team "${ref}" is ambiguous: it exists in ${teams.map((t) => t.organization).join(", ")}`);
    return reference(path, `no team "${ref}" (define it under runs.teams)`);
  }

  /** A run name given by the timeline, or a `run-...` id. */
  run(ref: string, path: readonly (string | number)[]): string {
    const named = this.names.runs.runs[ref];
    if (named !== undefined) return named;
    if (ref.startsWith("run-") || ref.startsWith("cv-")) return ref;
    return reference(path, `no run named "${ref}" (name runs with queueRun.name or uploadConfiguration.name)`);
  }

  /** A workspace-keyed record with the keys resolved to ids. */
  workspaceLevels<V>(record: Readonly<Record<string, V>> | undefined, path: readonly (string | number)[]): Record<string, V> | undefined {
    if (record === undefined) return undefined;
    return Object.fromEntries(Object.entries(record).map(([ref, level]) => [this.workspace(ref, [...path, ref]), level]));
  }

  aclToken(name: string, path: readonly (string | number)[]): { accessorId: string; secretId: string } {
    return this.names.accessControl.tokens[name] ?? reference(path, `no access-control token named "${name}" (define it under accessControl.tokens)`);
  }

  secretsToken(name: string, path: readonly (string | number)[]): string {
    return this.names.secrets.tokens[name] ?? reference(path, `no secrets token named "${name}" (define it under secrets.tokens)`);
  }
}

const defined = <T extends object>(value: T): T => Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined)) as T;

function loadRuns(target: ScenarioTarget, doc: ScenarioDocument, resolve: NameResolver): void {
  const runs = doc.runs;
  if (runs === undefined) return;
  const { names } = resolve;
  const base = ["runs"];
  for (const [i, org] of (runs.organizations ?? []).entries()) {
    at([...base, "organizations", i], () => target.runs.addOrganization(org.name, defined({ email: org.email })));
  }
  for (const [i, ws] of (runs.workspaces ?? []).entries()) {
    const { organization, ...options } = ws;
    const made = at([...base, "workspaces", i], () => target.runs.addWorkspace(organization, defined({ ...options })));
    names.runs.workspaces[`${made.organization}/${made.name}`] = made.id;
  }
  for (const [i, user] of (runs.users ?? []).entries()) {
    const path = [...base, "users", i];
    const permissions = resolve.workspaceLevels(user.permissions, [...path, "permissions"]);
    const made = at(path, () => target.runs.addUser(defined({ ...user, permissions })));
    names.runs.users[made.username] = made.id;
  }
  for (const [i, team] of (runs.teams ?? []).entries()) {
    const path = [...base, "teams", i];
    const { organization, members, permissions, ...rest } = team;
    const memberIds = members?.map((m, j) => resolve.user(m, [...path, "members", j]));
    const levels = resolve.workspaceLevels(permissions, [...path, "permissions"]);
    const made = at(path, () => target.runs.addTeam(organization, defined({ ...rest, members: memberIds, permissions: levels })));
    names.runs.teams[`${made.organization}/${made.name}`] = made.id;
  }
  for (const [i, token] of (runs.tokens ?? []).entries()) {
    const path = [...base, "tokens", i];
    const owners = (["user", "team", "organization", "siteAdmin"] as const).filter((k) => token[k] !== undefined);
    if (owners.length !== 1) {
      throw new ScenarioDocumentError("schema", [{ path: pointer(path), expected: `must name exactly one owner: user, team, organization or siteAdmin (got ${owners.length === 0 ? "none" : owners.join(", ")})` }]);
    }
    const fixed = token.token === undefined ? {} : { token: token.token };
    const secret = at(path, () => {
      if (token.user !== undefined) return target.runs.issueUserToken(resolve.user(token.user, [...path, "user"]), fixed);
      if (token.team !== undefined) return target.runs.issueTeamToken(resolve.team(token.team, undefined, [...path, "team"]), fixed);
      if (token.organization !== undefined) return target.runs.issueOrganizationToken(token.organization, fixed);
      return target.runs.issueSiteAdminToken({ username: token.siteAdmin ?? "", ...fixed });
    });
    names.runs.tokens[token.name] = secret;
  }
  if (runs.outcome !== undefined) at([...base, "outcome"], () => target.runs.setOutcome(runs.outcome ?? {}));
  if (runs.coolOff !== undefined) at([...base, "coolOff"], () => target.runs.setCoolOff(runs.coolOff ?? 0));
  if (runs.uploadOutcome !== undefined) at([...base, "uploadOutcome"], () => target.runs.setUploadOutcome(runs.uploadOutcome ?? "succeeds"));
}

function loadAccessControl(target: ScenarioTarget, doc: ScenarioDocument, resolve: NameResolver): void {
  const acl = doc.accessControl;
  if (acl === undefined) return;
  const controls = target.accessControl;
  const { names } = resolve;
  const base = ["accessControl"];
  if (acl.settings !== undefined) at([...base, "settings"], () => controls.configure(acl.settings ?? {}));
  for (const [i, ns] of (acl.namespaces ?? []).entries()) {
    const { name, ...options } = ns;
    at([...base, "namespaces", i], () => controls.createNamespace(name, defined({ ...options })));
  }
  for (const [i, policy] of (acl.policies ?? []).entries()) {
    names.accessControl.policies[policy.name] = at([...base, "policies", i], () => controls.createPolicy(policy)).id;
  }
  for (const [i, role] of (acl.roles ?? []).entries()) {
    names.accessControl.roles[role.name] = at([...base, "roles", i], () => controls.createRole(role)).id;
  }
  for (const [i, method] of (acl.authMethods ?? []).entries()) {
    const path = [...base, "authMethods", i];
    const { identities, ...input } = method;
    at(path, () => controls.createAuthMethod(input));
    for (const [j, identity] of (identities ?? []).entries()) {
      const where = [...path, "identities", j];
      const given = [identity.serviceAccount, identity.claims].filter((v) => v !== undefined);
      if (given.length !== 1) throw new ScenarioDocumentError("schema", [{ path: pointer(where), expected: "must have exactly one of serviceAccount or claims" }]);
      at(where, () =>
        controls.registerBearerToken(method.name, identity.bearerToken, (identity.serviceAccount ?? identity.claims) as Record<string, unknown> as never, defined({ namespace: method.namespace })),
      );
    }
  }
  for (const [i, rule] of (acl.bindingRules ?? []).entries()) {
    at([...base, "bindingRules", i], () => controls.createBindingRule(rule));
  }
  for (const [i, token] of (acl.tokens ?? []).entries()) {
    const { name, ...input } = token;
    const made = at([...base, "tokens", i], () => controls.createToken(input));
    names.accessControl.tokens[name] = { accessorId: made.accessorId, secretId: made.secretId };
  }
}

/** Sets the node state from a document value (a state name or `{ state, ... }`). */
export function applyNodeState(target: ScenarioTarget, value: string | SecretsNodeStateFixture): void {
  if (typeof value === "string") target.secrets.setNodeState(value as SecretsNodeStateFixture["state"]);
  else {
    const { state, ...options } = value;
    target.secrets.setNodeState(state, defined({ ...options }));
  }
}

function loadSecrets(target: ScenarioTarget, doc: ScenarioDocument, resolve: NameResolver): void {
  const secrets = doc.secrets;
  if (secrets === undefined) return;
  const controls = target.secrets;
  const { names } = resolve;
  const base = ["secrets"];
  for (const [i, ns] of (secrets.namespaces ?? []).entries()) at([...base, "namespaces", i], () => controls.createNamespace(ns));
  for (const [i, mount] of (secrets.mounts ?? []).entries()) {
    const { path, type, ...options } = mount;
    at([...base, "mounts", i], () => controls.mount(path, type, defined({ ...options })));
  }
  for (const [i, policy] of (secrets.policies ?? []).entries()) at([...base, "policies", i], () => controls.createPolicy(policy.name, policy.rules));
  for (const [i, token] of (secrets.tokens ?? []).entries()) {
    const { name, ...options } = token;
    names.secrets.tokens[name] = at([...base, "tokens", i], () => controls.createToken(options)).token;
  }
  for (const [i, ssh] of (secrets.ssh ?? []).entries()) {
    const path = [...base, "ssh", i];
    const mount = ssh.mount ?? "ssh";
    const engine = sshScenario(controls, mount);
    if (ssh.ca !== undefined) {
      const ca = ssh.ca;
      if ("privateKey" in ca) at([...path, "ca"], () => engine.importCa(ca.privateKey, ca.publicKey));
      else names.secrets.sshCaPublicKeys[mount] = at([...path, "ca"], () => engine.generateCa(defined({ ...ca })));
    }
    for (const [name, key] of Object.entries(ssh.keys ?? {})) at([...path, "keys", name], () => engine.addKey(name, key));
    for (const [name, role] of Object.entries(ssh.otpRoles ?? {})) at([...path, "otpRoles", name], () => engine.addOtpRole(name, role));
    for (const [name, role] of Object.entries(ssh.caRoles ?? {})) at([...path, "caRoles", name], () => engine.addCaRole(name, role));
    if (ssh.zeroAddressRoles !== undefined) at([...path, "zeroAddressRoles"], () => engine.setZeroAddressRoles(ssh.zeroAddressRoles ?? []));
    if (ssh.otpTtl !== undefined) at([...path, "otpTtl"], () => engine.setOtpTtl(ssh.otpTtl ?? null));
  }
  for (const [i, cloud] of (secrets.cloud ?? []).entries()) {
    const path = [...base, "cloud", i];
    const engine = cloudScenario(controls, cloud.mount ?? "cloud");
    if (cloud.accountId !== undefined) at([...path, "accountId"], () => engine.setAccountId(cloud.accountId ?? ""));
    for (const [j, user] of (cloud.iamUsers ?? []).entries()) {
      const { userName, ...options } = user;
      at([...path, "iamUsers", j], () => engine.createIamUser(userName, defined({ ...options })));
    }
    for (const [j, role] of (cloud.accountRoles ?? []).entries()) {
      const { roleArn, ...options } = role;
      at([...path, "accountRoles", j], () => engine.declareRole(roleArn, defined({ ...options })));
    }
    if (cloud.root !== undefined) at([...path, "root"], () => engine.configureRoot(defined({ ...cloud.root })));
  }
  for (const [i, key] of (secrets.backendKeys ?? []).entries()) at([...base, "backendKeys", i], () => controls.addBackendKey(key.where, key.key));
  for (const [i, ring] of (secrets.keyRings ?? []).entries()) at([...base, "keyRings", i], () => controls.addKeyRing(ring.project, ring.region, ring.keyRing));
  for (const [i, library] of (secrets.pkcs11Libraries ?? []).entries()) at([...base, "pkcs11Libraries", i], () => controls.addPkcs11Library(library));
  for (const [i, method] of (secrets.mfaMethods ?? []).entries()) {
    const { type, ...options } = method;
    at([...base, "mfaMethods", i], () => controls.addMfaMethod(type, defined({ ...options })));
  }
  for (const [i, mount] of (secrets.authMounts ?? []).entries()) {
    const { type, ...options } = mount;
    at([...base, "authMounts", i], () => controls.addAuthMount(type, defined({ ...options })));
  }
  for (const [i, entity] of (secrets.identityEntities ?? []).entries()) {
    const { name, ...options } = entity;
    at([...base, "identityEntities", i], () => controls.addIdentityEntity(name, defined({ ...options })));
  }
  for (const [i, group] of (secrets.identityGroups ?? []).entries()) {
    const { name, ...options } = group;
    at([...base, "identityGroups", i], () => controls.addIdentityGroup(name, defined({ ...options })));
  }
  if (secrets.nodeState !== undefined) at([...base, "nodeState"], () => applyNodeState(target, secrets.nodeState ?? "active"));
}

/**
 * Adds a fault; the fault set's refusal (a `TypeError` naming the field) becomes a
 * {@link ScenarioDocumentError} at `path`.
 * @returns the fault's id.
 */
export function addFault(target: ScenarioTarget, fault: ScenarioFault, path: readonly (string | number)[]): string {
  try {
    return target.faults.add(fault as FaultDefinition).id;
  } catch (error) {
    if (error instanceof TypeError) throw new ScenarioDocumentError("fixture", [{ path: pointer(path), expected: error.message.replace(/^infra-doubles: /, "") }]);
    throw error;
  }
}

/**
 * Loads `document` into `target`: validates it against the schema, then makes the fixtures of
 * each service (runs, access control, secrets, in that order; within a service in the order the
 * types list them), then its faults. Nothing is kept when it fails.
 * @returns the names the document's fixtures resolved to, and its timeline ready to play.
 * @throws {ScenarioDocumentError} for a document that does not fit the schema (`schema`), names
 *   something unknown (`reference`), or a fixture the service refuses (`fixture`), with the JSON
 *   pointer of the culprit.
 * @example
 * const loaded = loadScenario(doubles, { runs: { organizations: [{ name: "acme" }] } });
 * loaded.names.runs.workspaces // {}
 */
export function loadScenario(target: ScenarioTarget, document: unknown): LoadedScenario {
  const doc = validateScenario(document);
  const names = emptyNames(target);
  const resolve = new NameResolver(target, names);
  const before = target.sim.snapshot();
  const faults: string[] = [];
  try {
    loadRuns(target, doc, resolve);
    loadAccessControl(target, doc, resolve);
    loadSecrets(target, doc, resolve);
    for (const [i, fault] of (doc.faults ?? []).entries()) faults.push(addFault(target, fault, ["faults", i]));
  } catch (error) {
    for (const id of faults) target.faults.remove(id);
    target.sim.restore(before);
    throw error;
  }
  const loadedAt = target.sim.now();
  return {
    document: doc,
    names,
    loadedAt,
    play: (options = {}) => playTimeline(target, doc, resolve, loadedAt, options),
  };
}
