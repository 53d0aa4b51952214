/**
 * Arbitraries of fixtures, as plain data, and the functions that install them through the public
 * scenario controls: a workspace with runs in given states, access-control tokens with expiry,
 * SSH roles. A fixture is data so fast-check can print and shrink it; installing is deterministic.
 */
import fc from "fast-check";
import type { Doubles } from "../scenarios/doubles.js";
import { sshScenario } from "../scenarios/secrets/ssh/ssh-scenario.js";
import { UsageError } from "../simulator/kernel/errors.js";

/** A final state a fixture run reaches without any action. */
export type FinishedRunState = "applied" | "planned_and_finished" | "errored";

/**
 * A workspace and its runs, oldest first: `finished` runs (each final), then optionally a run
 * paused for confirmation (`planned`, holding the workspace lock), then `queued` runs waiting
 * behind it (`pending`; only with a paused run).
 */
export interface WorkspaceFixture {
  readonly name: string;
  readonly autoApply: boolean;
  readonly finished: readonly FinishedRunState[];
  readonly paused: boolean;
  readonly queued: number;
}

/**
 * Workspaces with runs in given states.
 * @param options.maxRuns - most runs in all (default 4).
 * @example fc.sample(workspaceFixture(), 1) // [{ name: "ws-a", autoApply: false, finished: ["applied"], paused: true, queued: 1 }]
 */
export function workspaceFixture(options: { readonly maxRuns?: number } = {}): fc.Arbitrary<WorkspaceFixture> {
  const max = options.maxRuns ?? 4;
  return fc
    .record({
      name: fc.stringMatching(/^[a-z][a-z0-9-]{0,8}$/),
      autoApply: fc.boolean(),
      finished: fc.array(fc.constantFrom<FinishedRunState>("applied", "planned_and_finished", "errored"), { maxLength: max }),
      paused: fc.boolean(),
      queued: fc.integer({ min: 0, max: 2 }),
    })
    .map((f) => {
      const paused = f.paused && f.finished.length < max;
      return { ...f, paused, queued: paused ? Math.min(f.queued, max - f.finished.length - 1) : 0 };
    });
}

/** Workspaces installed per doubles (names stay unique). */
const installed = new WeakMap<Doubles, number>();

/** What {@link installWorkspace} made: ids and a bearer token of a user with `admin` access. */
export interface InstalledWorkspace {
  readonly organization: string;
  readonly workspaceId: string;
  readonly userId: string;
  /** `Authorization: Bearer <token>` for the run orchestration API. */
  readonly token: string;
  readonly configurationVersionId: string;
  /** Every run, oldest first, with the state the fixture asked for. */
  readonly runs: readonly { readonly id: string; readonly status: string }[];
}

/**
 * Installs a {@link WorkspaceFixture} through `doubles.runs` (the organization `acme` is created
 * when absent): an uploaded configuration version, then each run queued with an immediate
 * outcome script so it reaches its state at once.
 * @throws {UsageError} when a run does not reach its state (a bug in the fixture or the fake).
 * @example
 * const ws = installWorkspace(doubles, { name: "prod", autoApply: false, finished: ["applied"], paused: true, queued: 0 });
 * ws.runs // [{ id: "run-...", status: "applied" }, { id: "run-...", status: "planned" }]
 */
export function installWorkspace(doubles: Doubles, fixture: WorkspaceFixture): InstalledWorkspace {
  const runs = doubles.runs;
  const organization = runs.addOrganization("acme");
  const serial = (installed.get(doubles) ?? 0) + 1;
  installed.set(doubles, serial);
  const workspace = runs.addWorkspace(organization, { name: `${fixture.name}-${serial}`, autoApply: fixture.autoApply });
  const user = runs.addUser({ permissions: { [workspace.id]: "admin" } });
  const { configurationVersionId } = runs.uploadConfiguration(workspace.id, { as: user.id, autoQueueRuns: false });
  const made: { id: string; status: string }[] = [];
  const queue = (script: Parameters<typeof runs.nextRun>[1], autoApply: boolean, status: string): void => {
    runs.nextRun(workspace.id, { ...script, progression: "immediate" });
    const id = runs.queueRun(workspace.id, { as: user.id, autoApply });
    made.push({ id, status });
  };
  for (const state of fixture.finished) {
    if (state === "applied") queue({ plan: "changes" }, true, state);
    else if (state === "planned_and_finished") queue({ plan: "no-changes" }, false, state);
    else queue({ plan: "errors" }, false, state);
  }
  if (fixture.paused) queue({ plan: "changes" }, false, "planned");
  for (let i = 0; i < fixture.queued; i++) queue({ plan: "changes" }, false, "pending");
  for (const run of made) {
    const actual = runs.run(run.id).status;
    if (actual !== run.status) throw new UsageError(`testing: workspace fixture run ${run.id} is "${actual}", not "${run.status}"`);
  }
  return { organization, workspaceId: workspace.id, userId: user.id, token: runs.issueUserToken(user.id), configurationVersionId, runs: made };
}

/** An access-control token to install: a description and a lifetime (`null`: never expires). */
export interface TokenFixture {
  readonly description: string;
  /** Lifetime in ms (1 minute to 24 hours), or `null`. */
  readonly ttlMs: number | null;
}

/**
 * Tokens with or without expiry (lifetimes in whole minutes, 1 minute to 24 hours).
 * @example fc.sample(tokenFixture(), 1) // [{ description: "ci", ttlMs: 600000 }]
 */
export function tokenFixture(): fc.Arbitrary<TokenFixture> {
  return fc.record({
    description: fc.stringMatching(/^[a-z]{1,8}$/),
    ttlMs: fc.option(fc.integer({ min: 1, max: 24 * 60 }).map((minutes) => minutes * 60_000), { nil: null }),
  });
}

/** What {@link installToken} made. */
export interface InstalledToken {
  readonly accessorId: string;
  readonly secretId: string;
  /** ms since the epoch, or `null`. */
  readonly expiresAt: number | null;
}

/**
 * Creates the token through `doubles.accessControl` (with the `global-management` policy, so it
 * authorises every call while it lives).
 * @example installToken(doubles, { description: "ci", ttlMs: 600_000 }).expiresAt // now + 10 minutes
 */
export function installToken(doubles: Doubles, fixture: TokenFixture): InstalledToken {
  const view = doubles.accessControl.createToken({
    description: fixture.description,
    policies: ["global-management"],
    ...(fixture.ttlMs !== null ? { expirationTtl: fixture.ttlMs } : {}),
  });
  return { accessorId: view.accessorId, secretId: view.secretId, expiresAt: view.expirationTime ?? null };
}

/** An SSH role to install on the `ssh` mount. */
export type SshRoleFixture =
  | { readonly name: string; readonly keyType: "otp"; readonly cidrList: string; readonly defaultUser: string }
  | { readonly name: string; readonly keyType: "ca"; readonly ttlMs: number; readonly maxTtlMs: number; readonly allowedUsers: string };

/**
 * SSH roles: OTP roles (a /8 to /24 CIDR list, a default user) and CA roles (`ttl` not above `max_ttl`).
 * @example fc.sample(sshRoleFixture(), 1) // [{ name: "web", keyType: "otp", cidrList: "10.0.0.0/8", defaultUser: "ops" }]
 */
export function sshRoleFixture(): fc.Arbitrary<SshRoleFixture> {
  const name = fc.stringMatching(/^[a-z][a-z0-9]{0,7}$/);
  const otp = fc.record({
    name,
    keyType: fc.constant("otp" as const),
    cidrList: fc.constantFrom("10.0.0.0/8", "192.168.0.0/16", "172.16.4.0/24"),
    defaultUser: fc.constantFrom("ops", "ubuntu", "deploy"),
  });
  const ca = fc
    .record({ name, keyType: fc.constant("ca" as const), ttlHours: fc.integer({ min: 1, max: 24 }), maxHours: fc.integer({ min: 1, max: 48 }), allowedUsers: fc.constantFrom("*", "ops") })
    .map(({ ttlHours, maxHours, ...rest }) => ({ ...rest, ttlMs: Math.min(ttlHours, maxHours) * 3_600_000, maxTtlMs: maxHours * 3_600_000 }));
  return fc.oneof(otp, ca);
}

/**
 * Installs SSH roles on the doubles' `ssh` mount (a CA key is generated first when a CA role needs one).
 * @example installSshRoles(doubles, [{ name: "web", keyType: "otp", cidrList: "10.0.0.0/8", defaultUser: "ops" }])
 */
export function installSshRoles(doubles: Doubles, fixtures: readonly SshRoleFixture[], mountPath = "ssh"): void {
  const ssh = sshScenario(doubles.secrets, mountPath);
  for (const role of fixtures) {
    if (role.keyType === "otp") ssh.addOtpRole(role.name, { cidrList: role.cidrList, defaultUser: role.defaultUser });
    else {
      if (ssh.caPublicKey() === undefined) ssh.generateCa({ keyType: "ed25519" });
      ssh.addCaRole(role.name, { ttl: role.ttlMs, maxTtl: role.maxTtlMs, allowedUsers: role.allowedUsers });
    }
  }
}
