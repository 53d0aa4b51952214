/**
 * The checks of a loaded world that a schema cannot say, per resource kind of the three services:
 * every record filed under its own id, every reference naming a record the document holds, every
 * status one its state machine's table reaches, every timed move a record names still scheduled
 * (and every move's subject still there), and no stored time after the document's clock. The
 * first problem is refused with its JSON pointer (`StateDocumentError`).
 *
 * Resource kinds (src/simulator/<service>/state.ts):
 * - runs: organizations, workspaces (locks, permissions), users, teams, tokens, configuration
 *   versions, ingress attributes, runs, plans, applies, cost estimates, policy checks, engine
 *   versions, download links;
 * - accessControl: tokens, the secret index, policies, roles, auth methods, binding rules,
 *   namespaces, expiry moves, the bootstrap token;
 * - secrets: tokens, the root token, mounts (ssh and cloud engine state), leases, managed keys,
 *   namespaces, MFA methods, auth mounts, identity groups and entities, login enforcements,
 *   wrapped responses.
 */
import { reachableStates, type Machine } from "../../simulator/kernel/machine.js";
import { isoMillis } from "../../simulator/kernel/time.js";
import { configurationVersionMachine } from "../../simulator/runs/configuration-version-machine.js";
import { runMachine } from "../../simulator/runs/run-machine.js";
import type { DoublesCore } from "../doubles-core.js";
import { refuse } from "./errors.js";
import type { StateDocument } from "./types.js";

type Path = (string | number)[];
type Rec = Record<string, unknown>;

/** A decoded move (service as the simulator names it). */
interface Move {
  readonly id: number;
  readonly due: number;
  readonly service: string;
  readonly kind: string;
  readonly payload: unknown;
}

/** What {@link checkWorld} looks at. */
export interface WorldToCheck {
  readonly doubles: DoublesCore;
  readonly doc: StateDocument;
  /** Decoded service states by simulator service name. */
  readonly services: Readonly<Record<string, unknown>>;
  readonly moves: readonly Move[];
  readonly blobs: Readonly<Record<string, Uint8Array>>;
}

/** Per machine, the states a record may start in besides the table's initial one. */
const MORE_INITIAL: ReadonlyMap<Machine<string, string>, readonly string[]> = new Map([[configurationVersionMachine as Machine<string, string>, ["fetching"]]]);

/**
 * Checks the world of a state document (after the schema).
 * @throws {StateDocumentError} at the first inconsistency.
 */
export function checkWorld(world: WorldToCheck): void {
  const { doubles, doc, moves } = world;
  const now = doc.clock.epochMs;
  const keyOf = new Map(doubles.registeredPlugins.map((p) => [p.definition.name, p.key]));
  // The schedule: unique ids below nextId, a handler for each kind, nothing due before the clock.
  const seen = new Map<number, Move>();
  for (const [index, move] of moves.entries()) {
    const at: Path = ["schedule", "moves", index];
    if (seen.has(move.id)) refuse([...at, "id"], `move ${move.id} is scheduled twice`);
    if (move.id >= doc.schedule.nextId) refuse([...at, "id"], `must be below the schedule's nextId (${doc.schedule.nextId})`);
    seen.set(move.id, move);
    const plugin = doubles.registeredPlugins.find((p) => p.definition.name === move.service);
    if (plugin?.definition.moves?.[move.kind] === undefined) {
      refuse([...at, "kind"], `the ${keyOf.get(move.service) ?? move.service} service has no timed move "${move.kind}" (moves: ${Object.keys(plugin?.definition.moves ?? {}).join(", ")})`);
    }
    if (move.due < now) refuse([...at, "due"], `is before the document's clock (${doc.clock.now}): the move would have fired`);
  }
  for (const key of Object.keys(world.blobs)) {
    const number = /^blob-(\d+)$/.exec(key)?.[1];
    if (number === undefined || Number(number) > doc.blobs.seq) refuse(["blobs", "bytes", key], `must be named blob-N with N at most the blobs' seq (${doc.blobs.seq})`);
  }
  const ctx: Context = { now, iso: doc.clock.now, moves: seen, blobs: world.blobs };
  for (const plugin of doubles.registeredPlugins) {
    const state = world.services[plugin.definition.name] as Rec;
    const path: Path = ["services", plugin.key];
    if (plugin.key === "runs") checkRuns(ctx, state, path);
    else if (plugin.key === "accessControl") checkAccessControl(ctx, state, path);
    else if (plugin.key === "secrets") checkSecrets(ctx, state, path);
  }
  // Every move's subject is still there.
  for (const [index, move] of moves.entries()) checkMoveSubject(world, move, ["schedule", "moves", index, "payload"], keyOf.get(move.service) ?? move.service);
}

interface Context {
  readonly now: number;
  readonly iso: string;
  readonly moves: ReadonlyMap<number, Move>;
  readonly blobs: Readonly<Record<string, Uint8Array>>;
}

function entries(record: unknown): [string, Rec][] {
  return Object.entries((record ?? {}) as Record<string, Rec>);
}

function has(collection: unknown, key: unknown): boolean {
  return typeof key === "string" && collection !== null && typeof collection === "object" && Object.prototype.hasOwnProperty.call(collection, key);
}

/** The record is filed under its own id. */
function filedUnder(path: Path, key: string, record: Rec, field: string): void {
  if (record[field] !== key) refuse([...path, field], `must be ${JSON.stringify(key)}, the key it is filed under`);
}

/** `value` names a record of `collection` (null allowed when `nullable`). */
function ref(path: Path, value: unknown, collection: unknown, what: string, nullable = false): void {
  if (value === null && nullable) return;
  if (!has(collection, value)) refuse(path, `names ${what} ${JSON.stringify(value)}, which the document does not hold`);
}

/** A stored time that is in the past: never after the document's clock. */
function past(ctx: Context, path: Path, value: unknown): void {
  if (typeof value === "number" && value > ctx.now) refuse(path, `${isoMillis(value)} is after the document's clock (${ctx.iso}): a clock before a stored time`);
}

function pastTimestamps(ctx: Context, path: Path, timestamps: unknown, machineStates?: readonly string[]): void {
  for (const [state, at] of Object.entries((timestamps ?? {}) as Record<string, unknown>)) {
    if (machineStates !== undefined && !machineStates.includes(state)) refuse([...path, state], `is no state (states: ${machineStates.join(", ")})`);
    past(ctx, [...path, state], at);
  }
}

/** A status the machine's table reaches from where records start. */
function reachable(path: Path, status: unknown, machine: Machine<string, string>): void {
  const states = Object.keys(machine.states);
  if (typeof status !== "string" || !states.includes(status)) refuse(path, `must be a ${machine.name} state (${states.join(", ")}); got ${JSON.stringify(status)}`);
  const starts = [machine.initial, ...(MORE_INITIAL.get(machine) ?? [])];
  if (!starts.some((start) => reachableStates(machine, start).has(status))) refuse(path, `no transition of the ${machine.name} table reaches "${status}" from ${starts.map((s) => `"${s}"`).join(" or ")}`);
}

/** A move id a record names: scheduled, of this service and kind. */
function moveRef(ctx: Context, path: Path, id: unknown, service: string, kinds: readonly string[], nullable = false): void {
  if (id === null && nullable) return;
  const move = typeof id === "number" ? ctx.moves.get(id) : undefined;
  if (move === undefined || move.service !== service || !kinds.includes(move.kind)) {
    refuse(path, `names timed move ${JSON.stringify(id)}, which the schedule does not hold (a ${kinds.join(" or ")} move of this service)`);
  }
}

function checkRuns(ctx: Context, s: Rec, base: Path): void {
  const runs = s.runs as Rec;
  const users = s.users;
  const cvs = s.configurationVersions;
  for (const [key, org] of entries(s.organizations)) {
    filedUnder([...base, "organizations", key], key, org, "name");
    past(ctx, [...base, "organizations", key, "createdAt"], org.createdAt);
  }
  for (const [key, user] of entries(users)) {
    const at = [...base, "users", key];
    filedUnder(at, key, user, "id");
    for (const org of Object.keys(user.organizationAccess as Rec)) ref([...at, "organizationAccess", org], org, s.organizations, "organization");
    past(ctx, [...at, "createdAt"], user.createdAt);
  }
  for (const [key, team] of entries(s.teams)) {
    const at = [...base, "teams", key];
    filedUnder(at, key, team, "id");
    ref([...at, "organization"], team.organization, s.organizations, "organization");
    (team.members as string[]).forEach((member, i) => ref([...at, "members", i], member, users, "user"));
    ref([...at, "serviceAccountUserId"], team.serviceAccountUserId, users, "user");
  }
  for (const [key, token] of entries(s.tokens)) {
    const at = [...base, "tokens", key];
    filedUnder(at, key, token, "secret");
    const owners = token.kind === "user" ? users : token.kind === "team" ? s.teams : s.organizations;
    ref([...at, "owner"], token.owner, owners, String(token.kind));
    past(ctx, [...at, "createdAt"], token.createdAt);
  }
  const engineVersions = new Set(Object.values((s.engineVersions ?? {}) as Record<string, Rec>).map((v) => v.version));
  for (const [key, ws] of entries(s.workspaces)) {
    const at = [...base, "workspaces", key];
    filedUnder(at, key, ws, "id");
    ref([...at, "organization"], ws.organization, s.organizations, "organization");
    if (!engineVersions.has(ws.engineVersion)) refuse([...at, "engineVersion"], `names engine version ${JSON.stringify(ws.engineVersion)}, which no engine version of the document has (a version in use is never deleted)`);
    for (const principal of Object.keys(ws.permissions as Rec)) ref([...at, "permissions", principal], principal, principal.startsWith("team-") ? s.teams : users, principal.startsWith("team-") ? "team" : "user");
    ref([...at, "lockedBy"], ws.lockedBy, runs, "run", true);
    if (ws.lockedBy !== null && (runs[ws.lockedBy as string] as Rec).workspaceId !== key) refuse([...at, "lockedBy"], `names run ${JSON.stringify(ws.lockedBy)} of another workspace`);
    const lock = ws.lock as Rec | null;
    if (lock !== null) {
      if (ws.lockedBy !== null) refuse([...at, "lock"], "a workspace locked by a user or team is not held by a run too (lockedBy must be null)");
      ref([...at, "lock", "id"], lock.id, lock.kind === "team" ? s.teams : users, String(lock.kind));
      past(ctx, [...at, "lock", "at"], lock.at);
    }
    ref([...at, "latestConfigurationVersionId"], ws.latestConfigurationVersionId, cvs, "configuration version", true);
    ref([...at, "currentConfigurationVersionId"], ws.currentConfigurationVersionId, cvs, "configuration version", true);
    ref([...at, "currentRunId"], ws.currentRunId, runs, "run", true);
    past(ctx, [...at, "createdAt"], ws.createdAt);
  }
  const cvStates = Object.keys(configurationVersionMachine.states);
  for (const [key, cv] of entries(cvs)) {
    const at = [...base, "configurationVersions", key];
    filedUnder(at, key, cv, "id");
    ref([...at, "workspaceId"], cv.workspaceId, s.workspaces, "workspace");
    reachable([...at, "status"], cv.status, configurationVersionMachine as Machine<string, string>);
    pastTimestamps(ctx, [...at, "statusTimestamps"], cv.statusTimestamps, cvStates);
    ref([...at, "ingressAttributesId"], cv.ingressAttributesId, s.ingressAttributes, "ingress attributes", true);
    ref([...at, "createdBy"], cv.createdBy, users, "user");
    ref([...at, "blobKey"], cv.blobKey, ctx.blobs, "stored bytes", true);
    moveRef(ctx, [...at, "pendingMove"], cv.pendingMove, "runs", ["configuration-version-fetch"], true);
    past(ctx, [...at, "createdAt"], cv.createdAt);
  }
  for (const [key, ia] of entries(s.ingressAttributes)) {
    const at = [...base, "ingressAttributes", key];
    filedUnder(at, key, ia, "id");
    ref([...at, "configurationVersionId"], ia.configurationVersionId, cvs, "configuration version");
    ref([...at, "createdBy"], ia.createdBy, users, "user");
  }
  const runStates = Object.keys(runMachine.states);
  for (const [key, run] of entries(runs)) {
    const at = [...base, "runs", key];
    filedUnder(at, key, run, "id");
    ref([...at, "workspaceId"], run.workspaceId, s.workspaces, "workspace");
    ref([...at, "configurationVersionId"], run.configurationVersionId, cvs, "configuration version");
    ref([...at, "createdBy"], run.createdBy, users, "user");
    reachable([...at, "status"], run.status, runMachine as Machine<string, string>);
    pastTimestamps(ctx, [...at, "statusTimestamps"], run.statusTimestamps, runStates);
    ref([...at, "planId"], run.planId, s.plans, "plan");
    ref([...at, "applyId"], run.applyId, s.applies, "apply");
    ref([...at, "costEstimateId"], run.costEstimateId, s.costEstimates, "cost estimate", true);
    (run.policyCheckIds as string[]).forEach((id, i) => ref([...at, "policyCheckIds", i], id, s.policyChecks, "policy check"));
    (run.comments as Rec[]).forEach((comment, i) => past(ctx, [...at, "comments", i, "at"], comment.at));
    moveRef(ctx, [...at, "pendingMove"], run.pendingMove, "runs", ["run-step"], true);
    past(ctx, [...at, "createdAt"], run.createdAt);
  }
  for (const group of ["plans", "applies", "costEstimates", "policyChecks"] as const) {
    for (const [key, phase] of entries(s[group])) {
      const at = [...base, group, key];
      filedUnder(at, key, phase, "id");
      ref([...at, "runId"], phase.runId, runs, "run");
      pastTimestamps(ctx, [...at, "statusTimestamps"], phase.statusTimestamps);
    }
  }
  for (const [key, version] of entries(s.engineVersions)) filedUnder([...base, "engineVersions", key], key, version, "id");
  for (const [key, link] of entries(s.downloadLinks)) {
    const at = [...base, "downloadLinks", key];
    filedUnder(at, key, link, "token");
    ref([...at, "configurationVersionId"], link.configurationVersionId, cvs, "configuration version");
    ref([...at, "blobKey"], link.blobKey, ctx.blobs, "stored bytes");
  }
}

function checkAccessControl(ctx: Context, s: Rec, base: Path): void {
  const index = s.index as number;
  const indexed = (at: Path, record: Rec): void => {
    for (const field of ["createIndex", "modifyIndex"]) {
      if (typeof record[field] === "number" && (record[field] as number) > index) refuse([...at, field], `must be at most the service's index (${index}): a write index after the last write`);
    }
  };
  for (const [key, policy] of entries(s.policies)) {
    filedUnder([...base, "policies", key], key, policy, "id");
    indexed([...base, "policies", key], policy);
  }
  for (const [key, role] of entries(s.roles)) {
    const at = [...base, "roles", key];
    filedUnder(at, key, role, "id");
    indexed(at, role);
  }
  for (const [key, method] of entries(s.authMethods)) {
    const at = [...base, "authMethods", key];
    if (key !== `${String(method.namespace)}/${String(method.name)}`) refuse(at, `must be filed under "<namespace>/<name>" (${JSON.stringify(`${String(method.namespace)}/${String(method.name)}`)})`);
    indexed(at, method);
  }
  for (const [key, rule] of entries(s.bindingRules)) {
    const at = [...base, "bindingRules", key];
    filedUnder(at, key, rule, "id");
    ref([...at, "authMethod"], `${String(rule.namespace)}/${String(rule.authMethod)}`, s.authMethods, "auth method (namespace/name)");
    indexed(at, rule);
  }
  for (const [key, namespace] of entries(s.namespaces)) {
    const at = [...base, "namespaces", key];
    filedUnder(at, key, namespace, "name");
  }
  const secrets = s.secrets as Record<string, string>;
  for (const [key, token] of entries(s.tokens)) {
    const at = [...base, "tokens", key];
    filedUnder(at, key, token, "accessorId");
    if (secrets[token.secretId as string] !== key) refuse([...at, "secretId"], `the secret index (secrets) must file this SecretID under AccessorID ${JSON.stringify(key)}`);
    if (token.authMethod !== "") ref([...at, "authMethod"], `${String(token.authMethodNamespace)}/${String(token.authMethod)}`, s.authMethods, "auth method (namespace/name)");
    past(ctx, [...at, "createTime"], token.createTime);
    indexed(at, token);
  }
  for (const [secret, accessor] of Object.entries(secrets)) {
    const at = [...base, "secrets", secret];
    ref(at, accessor, s.tokens, "token (AccessorID)");
    if ((s.tokens as Record<string, Rec>)[accessor]?.secretId !== secret) refuse(at, `token ${JSON.stringify(accessor)} has another SecretID`);
  }
  for (const [accessor, moveId] of Object.entries((s.expiryMoves ?? {}) as Record<string, unknown>)) {
    const at = [...base, "expiryMoves", accessor];
    ref(at, accessor, s.tokens, "token (AccessorID)");
    moveRef(ctx, at, moveId, "access-control", ["token.expire"]);
  }
  const bootstrapState = s.bootstrapState as Rec;
  if ((bootstrapState.resetIndex as number) > index) refuse([...base, "bootstrapState", "resetIndex"], `must be at most the service's index (${index})`);
}

function checkSecrets(ctx: Context, s: Rec, base: Path): void {
  const tokens = s.tokens;
  for (const [key, token] of entries(tokens)) {
    const at = [...base, "tokens", key];
    filedUnder(at, key, token, "id");
    if (token.parent !== undefined) ref([...at, "parent"], token.parent, tokens, "parent token", true);
    past(ctx, [...at, "createdAt"], token.createdAt);
    past(ctx, [...at, "lastRenewal"], token.lastRenewal);
  }
  for (const [key, ns] of entries(s.namespaces)) filedUnder([...base, "namespaces", key], key, ns, "path");
  for (const [key, mount] of entries(s.mounts)) {
    const at = [...base, "mounts", key];
    filedUnder(at, key, mount, "path");
    (mount.allowedManagedKeys as string[]).forEach((name, i) => ref([...at, "allowedManagedKeys", i], name, s.managedKeys, "managed key"));
    const engine = (mount.engineState ?? {}) as Rec;
    if (mount.type === "ssh") {
      for (const [otp, record] of entries(engine.otps)) ref([...at, "engineState", "otps", otp, "leaseId"], record.leaseId, s.leases, "lease");
    }
    if (mount.type === "cloud") {
      for (const [name, role] of entries(engine.staticRoles)) moveRef(ctx, [...at, "engineState", "staticRoles", name, "moveId"], role.moveId, "secrets", ["engine.move"]);
    }
  }
  for (const [key, lease] of entries(s.leases)) {
    const at = [...base, "leases", key];
    filedUnder(at, key, lease, "id");
    ref([...at, "mount"], lease.mount, s.mounts, "mount");
    if ((s.mounts as Record<string, Rec>)[lease.mount as string]?.uuid !== lease.mountUuid) refuse([...at, "mountUuid"], `must be the uuid of mount ${JSON.stringify(lease.mount)} (a lease of a mount since replaced is revoked)`);
    moveRef(ctx, [...at, "moveId"], lease.moveId, "secrets", ["lease.expire"]);
    past(ctx, [...at, "issuedAt"], lease.issuedAt);
    past(ctx, [...at, "lastRenewal"], lease.lastRenewal);
  }
  for (const [key, record] of entries(s.managedKeys)) filedUnder([...base, "managedKeys", key], key, record, "name");
  for (const group of ["mfaMethods", "identityGroups", "identityEntities"] as const) {
    for (const [key, record] of entries(s[group])) filedUnder([...base, group, key], key, record, "id");
  }
  for (const [key, mount] of entries(s.authMounts)) filedUnder([...base, "authMounts", key], key, mount, "accessor");
  for (const [key, enforcement] of entries(s.loginEnforcements)) {
    const at = [...base, "loginEnforcements", key];
    (enforcement.mfaMethodIds as string[]).forEach((id, i) => ref([...at, "mfaMethodIds", i], id, s.mfaMethods, "MFA method"));
    (enforcement.authMethodAccessors as string[]).forEach((id, i) => ref([...at, "authMethodAccessors", i], id, s.authMounts, "auth mount (accessor)"));
    (enforcement.identityGroupIds as string[]).forEach((id, i) => ref([...at, "identityGroupIds", i], id, s.identityGroups, "identity group"));
    (enforcement.identityEntityIds as string[]).forEach((id, i) => ref([...at, "identityEntityIds", i], id, s.identityEntities, "identity entity"));
  }
  for (const [key, wrapping] of entries(s.wrappings)) {
    const at = [...base, "wrappings", key];
    filedUnder(at, key, wrapping, "token");
    moveRef(ctx, [...at, "moveId"], wrapping.moveId, "secrets", ["wrapping.expire"]);
    past(ctx, [...at, "createdAt"], wrapping.createdAt);
  }
}

/** The record a timed move acts on is still there. */
function checkMoveSubject(world: WorldToCheck, move: Move, at: Path, key: string): void {
  const state = world.services[move.service] as Rec;
  const payload = move.payload as Rec | string | null;
  const object = typeof payload === "object" && payload !== null ? payload : undefined;
  switch (`${key} ${move.kind}`) {
    case "runs run-step":
      ref([...at, "runId"], object?.runId, state.runs, "run");
      return;
    case "runs configuration-version-fetch":
      ref([...at, "configurationVersionId"], object?.configurationVersionId, state.configurationVersions, "configuration version");
      return;
    case "accessControl token.expire":
      ref(at, payload, state.tokens, "token (AccessorID)");
      return;
    case "secrets lease.expire":
      ref(at, payload, state.leases, "lease");
      return;
    case "secrets wrapping.expire":
      ref(at, payload, state.wrappings, "wrapped response");
      return;
    case "secrets engine.move":
      ref([...at, "mount"], object?.mount, state.mounts, "mount");
      return;
    default:
      return;
  }
}
