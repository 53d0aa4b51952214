/**
 * Model commands of the secrets service (`fc.commands`): issue SSH one-time passwords and verify
 * them, issue renewable cloud credentials, renew and revoke leases, change the node's health
 * state, advance the clock, and your own client's step. Every command goes through HTTP. The
 * model checks: an OTP verifies at most once (and never after its lease ends or is revoked);
 * after every command each lease it knows is looked up with the expiry the model expects, and
 * every lease ends at or before its max TTL; the health endpoint answers each node state's code.
 *
 * The model is a simplified picture: per lease its expiry and cap (ms), per OTP whether it was used.
 * Spec: secrets.md "SSH engine" (OTP), "Leases", "Health".
 */
import fc from "fast-check";
import { CloudScenario } from "../../scenarios/secrets/cloud/cloud-scenario.js";
import { sshScenario } from "../../scenarios/secrets/ssh/ssh-scenario.js";
import type { NodeState } from "../../simulator/secrets/node-state.js";
import { commandFault, describeFault, expectModel, jsonOf, resolveTarget, sendFaulted, storyDuration, type ClientHook, type CommandFault, type ModelTarget, type ResolvedTarget } from "./common.js";

/** One lease as the model pictures it. */
export interface ModelLease {
  readonly leaseId: string;
  readonly kind: "otp" | "cloud";
  /** ms since the epoch. */
  expiresAt: number;
  /** The latest the lease may end (issue time + max TTL), ms since the epoch. */
  readonly maxAt: number;
  revoked: boolean;
  /** OTP leases: the password, and whether it verified. */
  readonly otp?: string;
  used: boolean;
}

/** The model: leases issued so far, oldest first, the node state and the clock. */
export interface SecretsModel {
  readonly leases: ModelLease[];
  health: NodeState;
  now: number;
}

/** The real side the commands act on (also what your {@link ClientHook} receives). */
export interface SecretsWorld extends ResolvedTarget {
  /** The root token. */
  readonly root: string;
  /** The OTP role on the `ssh` mount, an address it allows, and its OTP lifetime (ms). */
  readonly otpRole: string;
  readonly ip: string;
  readonly otpTtlMs: number;
  /** The cloud role issuing renewable credentials, their lease and max lease (ms). */
  readonly cloudRole: string;
  readonly leaseMs: number;
  readonly leaseMaxMs: number;
  /** Moves the doubles' clock (ms). */
  advance(ms: number): void;
  /** A request to the secrets API (path relative to `urls.secrets.api`) with the root token (`null`: none). */
  request(method: string, path: string, body?: unknown, token?: string | null): Promise<Response>;
}

/** One command of the secrets model: a fast-check `AsyncCommand` checked against the model and run against the doubles (see secretsCommands). */
export type SecretsCommand = fc.AsyncCommand<SecretsModel, SecretsWorld>;

/** The health code of each node state (spec "Health", default codes). */
const HEALTH_CODES: Readonly<Record<NodeState, number>> = {
  active: 200,
  standby: 429,
  "performance-standby": 473,
  "dr-secondary-active": 472,
  "dr-secondary-standby": 472,
  "not-initialized": 501,
  sealed: 503,
};

const lives = (model: Readonly<SecretsModel>, lease: ModelLease): boolean => !lease.revoked && model.now < lease.expiresAt;
const active = (model: Readonly<SecretsModel>): boolean => model.health === "active";

/** After every command (on an active node): each lease is found exactly while it lives, with the model's expiry, never past its cap. */
async function checkInvariants(model: SecretsModel, world: SecretsWorld): Promise<void> {
  if (!active(model)) return;
  for (const lease of model.leases) {
    const response = await world.request("PUT", "/sys/leases/lookup", { lease_id: lease.leaseId });
    if (!lives(model, lease)) {
      expectModel(response.status === 400, `lease ${lease.leaseId} has ended but lookup answered ${response.status}`);
      continue;
    }
    expectModel(response.status === 200, `live lease ${lease.leaseId} lookup answered ${response.status}`);
    const data = (await jsonOf<{ data: { expire_time: string } }>(response, "lookup lease")).data;
    const expires = Date.parse(data.expire_time);
    expectModel(expires <= lease.maxAt, `every lease ends at or before its max TTL: ${lease.leaseId} expires ${data.expire_time}, cap ${new Date(lease.maxAt).toISOString()}`);
    expectModel(expires === lease.expiresAt, `${lease.leaseId} expires ${data.expire_time}, the model expected ${new Date(lease.expiresAt).toISOString()}`);
  }
}

const pick = (leases: readonly ModelLease[], index: number): ModelLease | undefined => leases[index % Math.max(1, leases.length)];

class IssueOtp implements SecretsCommand {
  check = active;
  async run(model: SecretsModel, world: SecretsWorld): Promise<void> {
    const response = await world.request("POST", `/ssh/creds/${world.otpRole}`, { ip: world.ip });
    expectModel(response.status === 200, `issue OTP answered ${response.status}`);
    const answer = await jsonOf<{ lease_id: string; lease_duration: number; data: { key: string } }>(response, "issue OTP");
    expectModel(answer.lease_duration * 1000 === world.otpTtlMs, `OTP lease of ${answer.lease_duration}s, the model expected ${world.otpTtlMs / 1000}s`);
    model.leases.push({ leaseId: answer.lease_id, kind: "otp", expiresAt: model.now + world.otpTtlMs, maxAt: model.now + world.otpTtlMs, revoked: false, otp: answer.data.key, used: false });
    await checkInvariants(model, world);
  }
  toString = (): string => "issue OTP";
}

class VerifyOtp implements SecretsCommand {
  constructor(readonly index: number) {}
  check = (model: Readonly<SecretsModel>): boolean => active(model) && model.leases.some((l) => l.kind === "otp");
  async run(model: SecretsModel, world: SecretsWorld): Promise<void> {
    const lease = pick(model.leases.filter((l) => l.kind === "otp"), this.index);
    if (lease === undefined) return;
    const response = await world.request("POST", "/ssh/verify", { otp: lease.otp }, null);
    const verifies = !lease.used && lives(model, lease);
    expectModel(
      response.status === (verifies ? 200 : 400),
      verifies ? `a fresh OTP answered ${response.status}` : `an OTP verifies at most once (and not after its lease ends): ${lease.used ? "used" : "ended"} OTP answered ${response.status}`,
    );
    if (verifies) lease.used = true;
    await checkInvariants(model, world);
  }
  toString = (): string => `verify OTP ${this.index + 1}`;
}

class IssueCredentials implements SecretsCommand {
  check = active;
  async run(model: SecretsModel, world: SecretsWorld): Promise<void> {
    const response = await world.request("POST", `/cloud/creds/${world.cloudRole}`);
    expectModel(response.status === 200, `issue credentials answered ${response.status}: ${await response.clone().text()}`);
    const answer = await jsonOf<{ lease_id: string; lease_duration: number }>(response, "issue credentials");
    const expiresAt = model.now + answer.lease_duration * 1000;
    expectModel(answer.lease_duration * 1000 === Math.min(world.leaseMs, world.leaseMaxMs), `credentials lease of ${answer.lease_duration}s`);
    model.leases.push({ leaseId: answer.lease_id, kind: "cloud", expiresAt, maxAt: model.now + world.leaseMaxMs, revoked: false, used: false });
    await checkInvariants(model, world);
  }
  toString = (): string => "issue cloud credentials";
}

class Renew implements SecretsCommand {
  constructor(
    readonly index: number,
    readonly incrementS: number,
  ) {}
  check = (model: Readonly<SecretsModel>): boolean => active(model) && model.leases.some((l) => l.kind === "cloud");
  async run(model: SecretsModel, world: SecretsWorld): Promise<void> {
    const lease = pick(model.leases.filter((l) => l.kind === "cloud"), this.index);
    if (lease === undefined) return;
    const response = await world.request("PUT", "/sys/leases/renew", { lease_id: lease.leaseId, increment: this.incrementS });
    if (!lives(model, lease)) {
      expectModel(response.status === 400, `renewing an ended lease answered ${response.status}`);
    } else {
      expectModel(response.status === 200, `renewing a live lease answered ${response.status}: ${await response.clone().text()}`);
      const seconds = (await jsonOf<{ lease_duration: number }>(response, "renew lease")).lease_duration;
      const expiresAt = model.now + seconds * 1000;
      expectModel(expiresAt <= lease.maxAt, `every lease ends at or before its max TTL: renewed ${lease.leaseId} to ${new Date(expiresAt).toISOString()}`);
      expectModel(expiresAt === Math.min(model.now + this.incrementS * 1000, lease.maxAt), `renewing by ${this.incrementS}s gave ${seconds}s`);
      lease.expiresAt = expiresAt;
    }
    await checkInvariants(model, world);
  }
  toString = (): string => `renew lease ${this.index + 1} by ${storyDuration(this.incrementS * 1000)}`;
}

/** The status of each of the service's own fault answers (the model's own list). */
const FAULT_STATUS: Readonly<Record<string, number>> = { sealed: 503, "internal-error": 500, "rate-limited": 429 };

/**
 * Renew a live lease with a fault on that request: not committed, its expiry is unchanged;
 * committed, it is renewed as a plain renew would have (the client saw a failure). The lookups
 * after every command check the expiry the model then expects.
 */
class FaultedRenew implements SecretsCommand {
  constructor(
    readonly index: number,
    readonly incrementS: number,
    readonly fault: CommandFault,
  ) {}
  check = (model: Readonly<SecretsModel>): boolean => active(model) && model.leases.some((l) => l.kind === "cloud" && lives(model, l));
  async run(model: SecretsModel, world: SecretsWorld): Promise<void> {
    const lease = pick(model.leases.filter((l) => l.kind === "cloud" && lives(model, l)), this.index);
    if (lease === undefined) return;
    await sendFaulted(world, { service: "secrets", route: "POST /sys/leases/renew" }, this.fault, FAULT_STATUS[this.fault.answer ?? ""], () =>
      world.request("PUT", "/sys/leases/renew", { lease_id: lease.leaseId, increment: this.incrementS }),
    );
    if (this.fault.commit) lease.expiresAt = Math.min(model.now + this.incrementS * 1000, lease.maxAt);
    await checkInvariants(model, world);
  }
  toString = (): string => `renew lease ${this.index + 1} by ${storyDuration(this.incrementS * 1000)} fails: ${describeFault(this.fault)}`;
}

class Revoke implements SecretsCommand {
  constructor(readonly index: number) {}
  check = (model: Readonly<SecretsModel>): boolean => active(model) && model.leases.length > 0;
  async run(model: SecretsModel, world: SecretsWorld): Promise<void> {
    const lease = pick(model.leases, this.index);
    if (lease === undefined) return;
    const response = await world.request("PUT", "/sys/leases/revoke", { lease_id: lease.leaseId });
    if (lives(model, lease)) expectModel(response.status === 204, `revoking a live lease answered ${response.status}`);
    lease.revoked = true;
    await checkInvariants(model, world);
  }
  toString = (): string => `revoke lease ${this.index + 1}`;
}

class SetHealth implements SecretsCommand {
  constructor(readonly state: NodeState) {}
  check = (): boolean => true;
  async run(model: SecretsModel, world: SecretsWorld): Promise<void> {
    world.doubles.secrets.setNodeState(this.state);
    model.health = this.state;
    const response = await world.request("GET", "/sys/health", undefined, null);
    expectModel(response.status === HEALTH_CODES[this.state], `health in ${this.state} answered ${response.status}, the model expected ${HEALTH_CODES[this.state]}`);
    if (this.state === "sealed") {
      const refused = await world.request("POST", `/ssh/creds/${world.otpRole}`, { ip: world.ip });
      expectModel(refused.status === 503, `a sealed node answered an OTP request with ${refused.status}`);
    }
    await checkInvariants(model, world);
  }
  toString = (): string => `node ${this.state}`;
}

class Advance implements SecretsCommand {
  constructor(readonly ms: number) {}
  check = (): boolean => true;
  async run(model: SecretsModel, world: SecretsWorld): Promise<void> {
    world.advance(this.ms);
    model.now += this.ms;
    await checkInvariants(model, world);
  }
  toString = (): string => `advance ${storyDuration(this.ms)}`;
}

class ClientStep implements SecretsCommand {
  constructor(readonly hook: ClientHook<SecretsWorld>) {}
  check = (): boolean => true;
  async run(model: SecretsModel, world: SecretsWorld): Promise<void> {
    await this.hook.act(world);
    await checkInvariants(model, world);
  }
  toString = (): string => `${this.hook.name} (your client)`;
}

/** Options of {@link secretsCommands}. */
export interface SecretsCommandsOptions {
  /** Your client's step, mixed in among the service's commands. */
  readonly client?: ClientHook<SecretsWorld>;
  /** Longest scenario (default 20 commands). */
  readonly maxCommands?: number;
  /** fast-check's `replayPath` of a printed counterexample (`/*replayPath="..."*\/`), to replay its command choices. */
  readonly replayPath?: string;
  /** Whether faulted commands appear (a lease renewal that fails with one of the service's answers or a dropped connection, committed or not; default true). */
  readonly faults?: boolean;
}

/**
 * Sequences of secrets commands for `fc.asyncModelRun`: issue and verify OTPs, issue cloud
 * credentials, renew (by 1 minute to 3 hours) and revoke leases, set the node state (mostly back
 * to active), advance the clock (1 to 60 minutes), a lease renewal that fails (`doubles.faults`:
 * sealed 503, 500, 429 or a dropped connection, before or after the renewal is kept), and your
 * client's step. A shrunk failure reads
 * e.g. `issue OTP, verify OTP 1, verify OTP 1`.
 * @example
 * await fc.assert(fc.asyncProperty(secretsCommands(), (cmds) => fc.asyncModelRun(secretsModelSetup({ doubles }), cmds)));
 */
export function secretsCommands(options: SecretsCommandsOptions = {}): fc.Arbitrary<Iterable<SecretsCommand>> {
  const index = fc.nat({ max: 9 });
  const commands: fc.Arbitrary<SecretsCommand>[] = [
    fc.constant(null).map(() => new IssueOtp()),
    index.map((i) => new VerifyOtp(i)),
    fc.constant(null).map(() => new IssueCredentials()),
    fc.tuple(index, fc.constantFrom(60, 600, 1800, 3600, 10_800)).map(([i, s]) => new Renew(i, s)),
    index.map((i) => new Revoke(i)),
    fc
      .oneof({ weight: 3, arbitrary: fc.constant<NodeState>("active") }, { weight: 1, arbitrary: fc.constantFrom<NodeState>("sealed", "standby", "performance-standby", "dr-secondary-active", "not-initialized") })
      .map((state) => new SetHealth(state)),
    fc.constantFrom(60_000, 5 * 60_000, 10 * 60_000, 30 * 60_000, 3_600_000).map((ms) => new Advance(ms)),
  ];
  if (options.faults !== false) {
    commands.push(fc.tuple(index, fc.constantFrom(60, 600, 3600), commandFault(Object.keys(FAULT_STATUS))).map(([i, s, fault]) => new FaultedRenew(i, s, fault)));
  }
  if (options.client !== undefined) commands.push(fc.constant(options.client).map((hook) => new ClientStep(hook)));
  return fc.commands(commands, { maxCommands: options.maxCommands ?? 20, ...(options.replayPath !== undefined ? { replayPath: options.replayPath } : {}) });
}

/**
 * The setup of `fc.asyncModelRun` for {@link secretsCommands}: an OTP role `web` on the `ssh`
 * mount (10.0.0.0/8, OTPs live 10 minutes), cloud root credentials and an `iam_user` role
 * `deploy` whose leases last 30 minutes, at most 2 hours; an empty model. Call it on fresh doubles
 * (or after `doubles.restore(snapshot)`).
 * @example
 * await fc.asyncModelRun(secretsModelSetup({ doubles, send: handlerFetch(doubles) }), cmds);
 */
export function secretsModelSetup(target: ModelTarget): () => Promise<{ model: SecretsModel; real: SecretsWorld }> {
  return async () => {
    const resolved = resolveTarget(target);
    const secrets = resolved.doubles.secrets;
    const otpTtlMs = 10 * 60_000;
    const ssh = sshScenario(secrets);
    ssh.addOtpRole("web", { cidrList: "10.0.0.0/8", defaultUser: "ops" });
    ssh.setOtpTtl(otpTtlMs);
    new CloudScenario(secrets).configureRoot();
    const root = secrets.rootToken;
    const api = resolved.urls.secrets.api;
    const request: SecretsWorld["request"] = (method, path, body, token = root) =>
      resolved.send(`${api}${path}`, { method, headers: token === null ? {} : { "x-vault-token": token }, ...(body === undefined ? {} : { body: JSON.stringify(body) }) });
    const leaseMs = 30 * 60_000;
    const leaseMaxMs = 2 * 3_600_000;
    for (const [path, body] of [
      ["/cloud/roles/deploy", { credential_type: "iam_user", policy_arns: "arn:aws:iam::aws:policy/ReadOnlyAccess" }],
      ["/cloud/config/lease", { lease: "30m", lease_max: "2h" }],
    ] as const) {
      const response = await request("POST", path, body);
      if (response.status !== 204) throw new Error(`testing: secrets model setup: ${path} answered ${response.status}: ${await response.text()}`);
    }
    const world: SecretsWorld = {
      ...resolved,
      root,
      otpRole: "web",
      ip: "10.0.0.5",
      otpTtlMs,
      cloudRole: "deploy",
      leaseMs,
      leaseMaxMs,
      advance: (ms) => void resolved.doubles.advance(ms),
      request,
    };
    return { model: { leases: [], health: "active", now: resolved.doubles.now() }, real: world };
  };
}
