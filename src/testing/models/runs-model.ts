/**
 * Model commands of the run orchestration service (`fc.commands`): create runs, upload
 * configuration, script the next run's outcome, take the run actions, advance the clock, and
 * your own client's step. Every command goes through HTTP; after every command the model checks
 * its invariants: at most one run holds the workspace lock, a final run never changes, and an
 * action is accepted exactly when the run's `actions` flags said it would be.
 *
 * The model is a simplified picture (run ids, the last status seen of each), not the simulator.
 * Spec: run-orchestration.md "Runs" (actions, workspace lock), "Configuration versions".
 */
import fc from "fast-check";
import { configurationArchive } from "../../scenarios/runs/archive.js";
import type { OutcomeScript } from "../../scenarios/runs/runs-scenario.js";
import { installWorkspace } from "../fixtures.js";
import { createRunBody, type JsonApiBody } from "../runs-bodies.js";
import { commandFault, describeFault, expectModel, jsonOf, resolveTarget, sendFaulted, storyDuration, type ClientHook, type CommandFault, type ModelTarget, type ResolvedTarget } from "./common.js";

/** Statuses no transition leaves (the model's own list, from the spec's state table). */
const FINAL = new Set(["applied", "planned_and_finished", "errored", "discarded", "canceled", "force_canceled", "policy_soft_failed"]);

const ALL_OPERATIONS = ["plan_only", "plan_and_apply", "save_plan", "refresh_only", "destroy", "empty_apply"].join(",");

/** The model: the runs created so far (oldest first) and the last status seen of each. */
export interface RunsModel {
  readonly runs: string[];
  readonly seen: Map<string, string>;
}

/** The real side the commands act on (also what your {@link ClientHook} receives). */
export interface RunsWorld extends ResolvedTarget {
  readonly workspaceId: string;
  readonly userId: string;
  /** A bearer token of a user with `admin` access to the workspace. */
  readonly token: string;
  /** Every run created so far, oldest first (the model's list). */
  readonly runIds: readonly string[];
  /** Moves the doubles' clock (ms). */
  advance(ms: number): void;
  /** A request to the run orchestration API (path relative to `urls.runs.api`) with the token. */
  request(method: string, path: string, body?: unknown): Promise<Response>;
}

/** One command of the runs model: a fast-check `AsyncCommand` checked against the model and run against the doubles (see runsCommands). */
export type RunsCommand = fc.AsyncCommand<RunsModel, RunsWorld>;

interface RunResource {
  readonly id: string;
  readonly attributes: { readonly status: string; readonly "plan-only": boolean; readonly "save-plan": boolean; readonly actions: Record<string, boolean> };
}

async function listRuns(world: RunsWorld): Promise<RunResource[]> {
  // Every operation: the default list leaves plan-only runs out (spec "Run operations").
  const response = await world.request("GET", `/workspaces/${world.workspaceId}/runs?page%5Bsize%5D=100&filter%5Boperation%5D=${ALL_OPERATIONS}`);
  expectModel(response.status === 200, `list runs answered ${response.status}`);
  return (await jsonOf<{ data: RunResource[] }>(response, "list runs")).data;
}

/**
 * The invariants, checked after every command: at most one run holds the workspace lock (a run
 * that is neither plan-only nor save-plan, past `pending` and not final), every run the model
 * knows is listed, and a run once final keeps its status.
 */
async function checkInvariants(model: RunsModel, world: RunsWorld): Promise<void> {
  const runs = await listRuns(world);
  const holders = runs.filter((r) => !r.attributes["plan-only"] && !r.attributes["save-plan"] && r.attributes.status !== "pending" && !FINAL.has(r.attributes.status));
  expectModel(holders.length <= 1, `one active run per workspace lock, found ${holders.map((r) => `${r.id} (${r.attributes.status})`).join(", ")}`);
  const byId = new Map(runs.map((r) => [r.id, r.attributes.status]));
  for (const id of model.runs) {
    const status = byId.get(id);
    expectModel(status !== undefined, `${id} is missing from the workspace's run list`);
    const before = model.seen.get(id);
    if (before !== undefined && FINAL.has(before)) expectModel(status === before, `${id} was final (${before}) and is now ${status}`);
    model.seen.set(id, status);
  }
}

const flags = (body: JsonApiBody): string => {
  const on = Object.entries(body.data.attributes).filter(([, v]) => v === true).map(([k]) => k);
  return on.length === 0 ? "" : ` (${on.join(", ")})`;
};

class CreateRun implements RunsCommand {
  constructor(readonly body: JsonApiBody) {}
  check = (): true => true;
  async run(model: RunsModel, world: RunsWorld): Promise<void> {
    const body = { data: { ...this.body.data, relationships: { workspace: { data: { type: "workspaces", id: world.workspaceId } } } } };
    const response = await world.request("POST", "/runs", body);
    expectModel(response.status === 201, `create run answered ${response.status}: ${await response.clone().text()}`);
    model.runs.push((await jsonOf<{ data: { id: string } }>(response, "create run")).data.id);
    await checkInvariants(model, world);
  }
  toString = (): string => `create run${flags(this.body)}`;
}

/** The status of each of the service's own fault answers (the model's own list, spec "Errors"). */
const FAULT_STATUS: Readonly<Record<string, number>> = { "rate-limited": 429, "internal-error": 500, "bad-gateway": 502, unavailable: 503 };

/**
 * Create run with a fault on that request: not committed, no run appears; committed, exactly one
 * new run appears (the client saw a failure, the service kept the run) and the model adopts it.
 */
class FaultedCreateRun implements RunsCommand {
  constructor(
    readonly body: JsonApiBody,
    readonly fault: CommandFault,
  ) {}
  check = (): true => true;
  async run(model: RunsModel, world: RunsWorld): Promise<void> {
    const body = { data: { ...this.body.data, relationships: { workspace: { data: { type: "workspaces", id: world.workspaceId } } } } };
    await sendFaulted(world, { service: "runs", operation: "create run" }, this.fault, FAULT_STATUS[this.fault.answer ?? ""], () => world.request("POST", "/runs", body));
    const known = new Set(model.runs);
    const created = (await listRuns(world)).filter((r) => !known.has(r.id)).map((r) => r.id);
    const expected = this.fault.commit ? 1 : 0;
    expectModel(created.length === expected, `a create run faulted with ${describeFault(this.fault)} left ${created.length} new run(s), the model expected ${expected}`);
    model.runs.push(...created);
    await checkInvariants(model, world);
  }
  toString = (): string => `create run${flags(this.body)} fails: ${describeFault(this.fault)}`;
}

class Upload implements RunsCommand {
  constructor(readonly autoQueue: boolean) {}
  check = (): true => true;
  async run(model: RunsModel, world: RunsWorld): Promise<void> {
    const created = await world.request("POST", `/workspaces/${world.workspaceId}/configuration-versions`, { data: { type: "configuration-versions", attributes: { "auto-queue-runs": this.autoQueue } } });
    expectModel(created.status === 201, `create configuration version answered ${created.status}`);
    const url = (await jsonOf<{ data: { attributes: { "upload-url": string } } }>(created, "create configuration version")).data.attributes["upload-url"];
    const upload = await world.send(url, { method: "PUT", headers: { "content-type": "application/octet-stream" }, body: configurationArchive() });
    expectModel(upload.status === 200, `upload answered ${upload.status}`);
    const known = new Set(model.runs);
    const queued = (await listRuns(world)).filter((r) => !known.has(r.id)).map((r) => r.id).reverse();
    expectModel(queued.length === (this.autoQueue ? 1 : 0), `an upload with auto-queue-runs ${String(this.autoQueue)} queued ${queued.length} run(s)`);
    model.runs.push(...queued);
    await checkInvariants(model, world);
  }
  toString = (): string => (this.autoQueue ? "upload configuration (queues a run)" : "upload configuration");
}

/** The run actions and the flag that says each is allowed. */
const ACTIONS = { apply: "is-confirmable", discard: "is-discardable", cancel: "is-cancelable", "force-cancel": "is-force-cancelable" } as const;
type ActionName = keyof typeof ACTIONS;

class Act implements RunsCommand {
  constructor(
    readonly action: ActionName,
    readonly index: number,
  ) {}
  check = (model: Readonly<RunsModel>): boolean => model.runs.length > 0;
  private target(model: Readonly<RunsModel>): string {
    return model.runs[this.index % model.runs.length] ?? "";
  }
  async run(model: RunsModel, world: RunsWorld): Promise<void> {
    const id = this.target(model);
    const shown = await world.request("GET", `/runs/${id}`);
    const before = (await jsonOf<{ data: RunResource }>(shown, "show run")).data.attributes;
    const allowed = before.actions[ACTIONS[this.action]] === true;
    const response = await world.request("POST", `/runs/${id}/actions/${this.action}`, { comment: "model" });
    expectModel(
      allowed ? response.status === 202 : response.status === 409,
      `${this.action} ${id} in ${before.status} (${ACTIONS[this.action]} ${String(allowed)}) answered ${response.status}`,
    );
    await checkInvariants(model, world);
  }
  toString = (): string => `${this.action} run ${this.index + 1}`;
}

class Advance implements RunsCommand {
  constructor(readonly ms: number) {}
  check = (): true => true;
  async run(model: RunsModel, world: RunsWorld): Promise<void> {
    world.advance(this.ms);
    await checkInvariants(model, world);
  }
  toString = (): string => `advance ${storyDuration(this.ms)}`;
}

class NextOutcome implements RunsCommand {
  constructor(readonly script: OutcomeScript) {}
  check = (): true => true;
  async run(model: RunsModel, world: RunsWorld): Promise<void> {
    world.doubles.runs.nextRun(world.workspaceId, this.script);
    await checkInvariants(model, world);
  }
  toString = (): string => `next run: ${Object.entries(this.script).map(([k, v]) => `${k} ${String(v)}`).join(", ")}`;
}

class ClientStep implements RunsCommand {
  constructor(readonly hook: ClientHook<RunsWorld>) {}
  check = (): true => true;
  async run(model: RunsModel, world: RunsWorld): Promise<void> {
    await this.hook.act({ ...world, runIds: [...model.runs] });
    const known = new Set(model.runs);
    model.runs.push(...(await listRuns(world)).filter((r) => !known.has(r.id)).map((r) => r.id).reverse());
    await checkInvariants(model, world);
  }
  toString = (): string => `${this.hook.name} (your client)`;
}

/**
 * Outcome scripts for the next run: plan with changes, without, or failing; an apply that fails;
 * a policy check that soft- or hard-fails. Progression stays timed (the clock moves runs).
 * @example fc.sample(runOutcome(), 1) // [{ plan: "errors" }]
 */
export function runOutcome(): fc.Arbitrary<OutcomeScript> {
  return fc.oneof(
    fc.record({ plan: fc.constantFrom("changes", "no-changes", "errors") as fc.Arbitrary<"changes" | "no-changes" | "errors"> }),
    fc.constant({ apply: "errors" as const }),
    fc.record({ policyCheck: fc.constantFrom("passes", "soft-fails", "hard-fails") as fc.Arbitrary<"passes" | "soft-fails" | "hard-fails"> }),
  );
}

/** Options of {@link runsCommands}. */
export interface RunsCommandsOptions {
  /** Your client's step, mixed in among the service's commands. */
  readonly client?: ClientHook<RunsWorld>;
  /** Longest scenario (default 20 commands). */
  readonly maxCommands?: number;
  /** fast-check's `replayPath` of a printed counterexample (`/*replayPath="..."*\/`), to replay its command choices. */
  readonly replayPath?: string;
  /** Whether faulted commands appear (a create run that fails with one of the service's answers or a dropped connection, committed or not; default true). */
  readonly faults?: boolean;
}

/**
 * Sequences of run orchestration commands for `fc.asyncModelRun`: create run (a body from
 * {@link createRunBody}), upload configuration, script the next run's outcome, apply / discard /
 * cancel / force-cancel a run, advance the clock (seconds to an hour), a create run that fails
 * (`doubles.faults`: 429/500/502/503 or a dropped connection, before or after the run is kept),
 * and your client's step.
 * A shrunk failure prints as a story, e.g.
 * `upload configuration (queues a run), advance 10m, apply run 1, deploy (your client)`.
 * @example
 * await fc.assert(fc.asyncProperty(runsCommands({ client: { name: "deploy", act: async (w) => { await deploy(w) } } }), (cmds) =>
 *   fc.asyncModelRun(runsModelSetup({ doubles }), cmds)));
 */
export function runsCommands(options: RunsCommandsOptions = {}): fc.Arbitrary<Iterable<RunsCommand>> {
  const index = fc.nat({ max: 9 });
  const commands: fc.Arbitrary<RunsCommand>[] = [
    createRunBody({ workspaceId: "ws-model" }).map((body) => new CreateRun(body)),
    fc.boolean().map((autoQueue) => new Upload(autoQueue)),
    runOutcome().map((script) => new NextOutcome(script)),
    fc.tuple(fc.constantFrom(...(Object.keys(ACTIONS) as ActionName[])), index).map(([action, i]) => new Act(action, i)),
    fc.constantFrom(30_000, 60_000, 5 * 60_000, 10 * 60_000, 3_600_000).map((ms) => new Advance(ms)),
  ];
  if (options.faults !== false) {
    commands.push(fc.tuple(createRunBody({ workspaceId: "ws-model" }), commandFault(Object.keys(FAULT_STATUS))).map(([body, fault]) => new FaultedCreateRun(body, fault)));
  }
  if (options.client !== undefined) {
    const hook = options.client;
    commands.push(fc.constant(hook).map((h) => new ClientStep(h)));
  }
  return fc.commands(commands, { maxCommands: options.maxCommands ?? 20, ...(options.replayPath !== undefined ? { replayPath: options.replayPath } : {}) });
}

/**
 * The setup of `fc.asyncModelRun` for {@link runsCommands}: a fresh workspace (with an uploaded
 * configuration version and an admin user's token) on the doubles, and an empty model.
 * @param target - the doubles, and optionally `send` ({@link handlerFetch} for no transport) and `urls`.
 * @example
 * await fc.asyncModelRun(runsModelSetup({ doubles, send: handlerFetch(doubles) }), cmds);
 */
export function runsModelSetup(target: ModelTarget): () => Promise<{ model: RunsModel; real: RunsWorld }> {
  return async () => {
    const resolved = resolveTarget(target);
    const ws = installWorkspace(resolved.doubles, { name: "model", autoApply: false, finished: [], paused: false, queued: 0 });
    const api = resolved.urls.runs.api;
    const headers = { authorization: `Bearer ${ws.token}`, "content-type": "application/vnd.api+json" };
    const world: RunsWorld = {
      ...resolved,
      workspaceId: ws.workspaceId,
      userId: ws.userId,
      token: ws.token,
      runIds: [],
      advance: (ms) => void resolved.doubles.advance(ms),
      request: (method, path, body) => resolved.send(`${api}${path}`, { method, headers, ...(body === undefined ? {} : { body: JSON.stringify(body) }) }),
    };
    return { model: { runs: [], seen: new Map() }, real: world };
  };
}
