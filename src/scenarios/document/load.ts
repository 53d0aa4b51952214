/**
 * Loads a {@link ScenarioDocument} into doubles: calls the same scenario controls a TypeScript test
 * calls, in a fixed order, resolving the document's names (workspaces, users, teams, tokens) to the
 * seeded ids the controls return. All or nothing: a document that fails part-way leaves the state
 * as it was.
 */
import { cloudScenario } from "../secrets/cloud/cloud-scenario.js";
import { sshScenario } from "../secrets/ssh/ssh-scenario.js";
import { pointer, ScenarioDocumentError } from "./errors.js";
import { addFault, applyNodeState, at, defined, NameResolver, type ScenarioNames, type ScenarioTarget } from "./target.js";
import { playTimeline, type PlayOptions, type ScenarioTranscript } from "./timeline.js";
import type { ScenarioDocument } from "./types.js";
import { validateScenario } from "./validate.js";
import { locate, readScenarioFile } from "./parse.js";

export type { ScenarioNames, ScenarioTarget } from "./target.js";

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
    secrets: {
      tokens: {},
      rootToken: target.secrets.rootToken,
      sshCaPublicKeys: {},
      mfaMethods: {},
      authMounts: {},
      identityEntities: {},
      identityGroups: {},
      managedKeys: {},
      loginEnforcements: {},
    },
  };
}

function loadRuns(target: ScenarioTarget, doc: ScenarioDocument, resolve: NameResolver): void {
  const runs = doc.runs;
  if (runs === undefined) return;
  const { names } = resolve;
  const base = ["runs"];
  for (const [i, org] of (runs.organizations ?? []).entries()) {
    at([...base, "organizations", i], () => target.runs.addOrganization(org.name, defined({ email: org.email, costEstimationEnabled: org.costEstimationEnabled })));
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
    if (cloud.serverCredentials !== undefined) at([...path, "serverCredentials"], () => engine.setServerCredentials(cloud.serverCredentials ?? null));
    if (cloud.serverRegion !== undefined) at([...path, "serverRegion"], () => engine.setServerRegion(cloud.serverRegion ?? null));
    for (const [j, user] of (cloud.iamUsers ?? []).entries()) {
      const { userName, ...options } = user;
      at([...path, "iamUsers", j], () => engine.createIamUser(userName, defined({ ...options })));
    }
    for (const [j, group] of (cloud.groups ?? []).entries()) {
      const { name, ...policies } = group;
      at([...path, "groups", j], () => engine.createGroup(name, defined({ ...policies })));
    }
    for (const [j, role] of (cloud.accountRoles ?? []).entries()) {
      const { roleArn, ...options } = role;
      at([...path, "accountRoles", j], () => engine.declareRole(roleArn, defined({ ...options })));
    }
    if (cloud.root !== undefined) at([...path, "root"], () => engine.configureRoot(defined({ ...cloud.root })));
    for (const [name, role] of Object.entries(cloud.roles ?? {})) at([...path, "roles", name], () => engine.writeRole(name, role));
    for (const [name, role] of Object.entries(cloud.staticRoles ?? {})) at([...path, "staticRoles", name], () => engine.writeStaticRole(name, role));
  }
  for (const [i, key] of (secrets.backendKeys ?? []).entries()) at([...base, "backendKeys", i], () => controls.addBackendKey(key.where, key.key));
  for (const [i, ring] of (secrets.keyRings ?? []).entries()) at([...base, "keyRings", i], () => controls.addKeyRing(ring.project, ring.region, ring.keyRing));
  for (const [i, library] of (secrets.pkcs11Libraries ?? []).entries()) at([...base, "pkcs11Libraries", i], () => controls.addPkcs11Library(library));
  if (secrets.serverEnvironment !== undefined) at([...base, "serverEnvironment"], () => controls.setServerEnvironment(defined({ ...secrets.serverEnvironment })));
  for (const [i, key] of (secrets.managedKeys ?? []).entries()) {
    const { name, type, ...options } = key;
    const view = at([...base, "managedKeys", i], () => controls.writeManagedKey(type, name, options));
    names.secrets.managedKeys[name] = String(view.UUID);
  }
  for (const [i, method] of (secrets.mfaMethods ?? []).entries()) {
    const { type, ...options } = method;
    const id = at([...base, "mfaMethods", i], () => controls.addMfaMethod(type, defined({ ...options })));
    if (method.name !== undefined) names.secrets.mfaMethods[method.name] = id;
  }
  for (const [i, mount] of (secrets.authMounts ?? []).entries()) {
    const { type, ...options } = mount;
    const accessor = at([...base, "authMounts", i], () => controls.addAuthMount(type, defined({ ...options })));
    names.secrets.authMounts[(mount.path ?? type).replace(/^\/+|\/+$/g, "")] = accessor;
  }
  for (const [i, entity] of (secrets.identityEntities ?? []).entries()) {
    const { name, ...options } = entity;
    names.secrets.identityEntities[name] = at([...base, "identityEntities", i], () => controls.addIdentityEntity(name, defined({ ...options })));
  }
  for (const [i, group] of (secrets.identityGroups ?? []).entries()) {
    const { name, ...options } = group;
    names.secrets.identityGroups[name] = at([...base, "identityGroups", i], () => controls.addIdentityGroup(name, defined({ ...options })));
  }
  for (const [i, enforcement] of (secrets.loginEnforcements ?? []).entries()) {
    const path = [...base, "loginEnforcements", i];
    const refs = (what: "mfaMethods" | "authMounts" | "identityGroups" | "identityEntities"): string[] | undefined =>
      enforcement[what]?.map((ref, j) => resolve.secretsFixture(what, ref, [...path, what, j]));
    const made = at(path, () =>
      controls.writeLoginEnforcement(
        defined({
          name: enforcement.name,
          namespace: enforcement.namespace,
          mfaMethodIds: refs("mfaMethods") ?? [],
          authMethodAccessors: refs("authMounts"),
          authMethodTypes: enforcement.authMethodTypes,
          identityGroupIds: refs("identityGroups"),
          identityEntityIds: refs("identityEntities"),
        }),
      ),
    );
    names.secrets.loginEnforcements[enforcement.name] = made.id;
  }
  if (secrets.nodeState !== undefined) at([...base, "nodeState"], () => applyNodeState(target, secrets.nodeState ?? "active"));
}

/**
 * Reads a scenario document file (JSON or YAML) and checks it against the schema, without loading
 * it anywhere: give the result to `createDoubles({ scenario })` or `doubles.load()`. Errors found
 * then (a reference, a refused fixture) still name the file, line and column.
 * @param path - the file's path (`.json`: JSON; `.yaml`/`.yml`: YAML; else by its text).
 * @returns the document, typed.
 * @throws {ScenarioDocumentError} for a file that cannot be read (`syntax`), is not JSON/YAML
 *   (`syntax`, with its line and column) or does not fit the schema (`schema`), each problem as
 *   `file:line:column: pointer: what was expected`, e.g.
 *   `world.yaml:3:5: /runs/workspaces/0/organisation: unknown property (did you mean "organization"?); allowed here: ...`.
 * @example
 * const world = loadScenario("test/world.yaml");
 * const doubles = createDoubles({ seed: 1, scenario: world }); // or scenario: "test/world.yaml"
 */
export function loadScenario(path: string): ScenarioDocument;
/**
 * Loads `document` into `target`: validates it against the schema, then makes the fixtures of
 * each service (runs, access control, secrets, in that order; within a service in the order the
 * types list them), then its faults. Nothing is kept when it fails.
 * @returns the names the document's fixtures resolved to, and its timeline ready to play.
 * @throws {ScenarioDocumentError} for a document that does not fit the schema (`schema`), names
 *   something unknown (`reference`), or a fixture the service refuses (`fixture`), with the JSON
 *   pointer of the culprit (and its file, line and column when the document was read from text).
 * @example
 * const loaded = loadScenario(doubles, { runs: { organizations: [{ name: "acme" }] } });
 * loaded.names.runs.workspaces // {}
 */
export function loadScenario(target: ScenarioTarget, document: unknown): LoadedScenario;
export function loadScenario(targetOrPath: ScenarioTarget | string, document?: unknown): LoadedScenario | ScenarioDocument {
  if (typeof targetOrPath === "string") {
    const parsed = readScenarioFile(targetOrPath);
    try {
      return validateScenario(parsed);
    } catch (error) {
      throw locate(error, parsed);
    }
  }
  const target = targetOrPath;
  let doc: ScenarioDocument;
  try {
    doc = validateScenario(document);
  } catch (error) {
    throw locate(error, document);
  }
  if (doc.mutant !== undefined && doc.mutant !== target.mutant?.id) {
    const built = target.mutant === undefined ? "the faithful fake" : `the mutant "${target.mutant.id}"`;
    throw locate(
      new ScenarioDocumentError("reference", [
        { path: "/mutant", expected: `the mutant these doubles were built as (${built}): a mutant is chosen when doubles are built (createDoubles({ scenario }), serve --scenario FILE, a world posted to /_sim/worlds)` },
      ]),
      document,
    );
  }
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
    throw locate(error, document);
  }
  const loadedAt = target.sim.now();
  return {
    document: doc,
    names,
    loadedAt,
    play: (options = {}) => {
      try {
        return playTimeline(target, doc, resolve, loadedAt, options);
      } catch (error) {
        throw locate(error, document);
      }
    },
  };
}
