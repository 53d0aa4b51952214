/**
 * Fixtures shared by bench rows: one stored run and the GET that reads it, the request every
 * transport and handler row times (see bench/README.md).
 */
import { execFileSync } from "node:child_process";
import { readdirSync, statSync } from "node:fs";
import { join } from "node:path";
import { createDoubles, type Doubles } from "../src/scenarios/doubles.js";
import type { SimRequest } from "../src/interceptors/http.js";
import { DoublesCore } from "../src/scenarios/doubles-core.js";
import { Simulator, type ServiceDefinition } from "../src/simulator/kernel/simulator.js";
import { demoDefinition, demoPlugin, type DemoState } from "../test/support/demo-service.js";
import { staticReply, type StaticReply } from "./anchors.js";

/** A doubles instance holding one finished run, and `GET /api/v2/runs/:id` for it. */
export interface RunGet {
  readonly doubles: Doubles;
  /** The run's URL on the default (nock) base. */
  readonly url: string;
  /** Headers a client sends (the bearer token). */
  readonly headers: Readonly<Record<string, string>>;
  /** The same GET for `handler.handle()`. */
  readonly request: SimRequest;
  /** The handler's answer, to replay byte for byte from the anchors. */
  readonly reply: StaticReply;
}

/**
 * One run stored in `doubles` and taken to its end (a workspace of organization `acme`, a user
 * with admin rights on it, a configuration uploaded, a no-changes plan, 5 minutes advanced), and the
 * user's bearer token that reads it.
 */
export function storeFinishedRun(doubles: Doubles): { readonly run: { readonly id: string }; readonly token: string } {
  const { runs } = doubles;
  const workspace = runs.addWorkspace(runs.addOrganization("acme"), { name: "prod" });
  const user = runs.addUser({ permissions: { [workspace.id]: "admin" } });
  const token = runs.issueUserToken(user.id);
  runs.uploadConfiguration(workspace.id, { as: user.id, autoQueueRuns: false });
  runs.nextRun(workspace.id, { plan: "no-changes" });
  runs.queueRun(workspace.id, { as: user.id });
  doubles.advance("5m");
  const run = runs.runsOf(workspace.id)[0];
  if (!run) throw new Error("bench: no run was created");
  return { run, token };
}

/** Builds {@link RunGet} (seed 1: the same bytes every time); `journal: { limit: 0 }` keeps no journal. */
export async function runGet(options: { readonly coverage?: boolean; readonly journal?: { readonly limit?: number }; readonly bundle?: boolean | { readonly limit?: number } } = {}): Promise<RunGet> {
  const doubles = createDoubles({ seed: 1, ...options });
  const { run, token } = storeFinishedRun(doubles);
  const url = `${doubles.baseUrls().runs?.api ?? ""}/runs/${run.id}`;
  const headers = { authorization: `Bearer ${token}` };
  const request: SimRequest = { method: "GET", url: new URL(url), headers, body: new Uint8Array() };
  const response = await doubles.handler.handle(request);
  if (response.status !== 200) throw new Error(`bench: GET run answered ${response.status}`);
  return { doubles, url, headers, request, reply: staticReply(response) };
}

/** GET of one stored thing on the demo service, through `handle()`. */
export function demoGet(): () => Promise<unknown> {
  const demo = new DoublesCore([demoPlugin]);
  demo.sim.update<DemoState, void>("demo", (ctx) => {
    ctx.state.things.t1 = { id: "t1", name: "x", createdAt: ctx.now, done: false };
  });
  const request = { method: "GET", url: new URL(`${demo.baseUrls().demo?.api ?? ""}/things/t1`), headers: {}, body: new Uint8Array() };
  return () => demo.handler.handle(request);
}

/** Timed moves each kernel row schedules and fires per call. */
export const KERNEL_MOVES = 10_000;

/** Due times spread over 100 s, out of order (the heap's work is the same for every row). */
export const kernelDue = (i: number): number => (i * 7919) % 100_000;

/**
 * A realistic but cheap move, the kernel's own cost per timed move: the demo service's `finish`
 * without its log line (it looks up the stored thing its payload names and flips a field), on a
 * simulator holding the 10,000 things the moves name.
 */
const cheapDefinition: ServiceDefinition<DemoState> = {
  ...demoDefinition,
  moves: {
    finish: (ctx, payload) => {
      const thing = ctx.state.things[payload as string];
      if (thing) thing.done = !thing.done;
    },
  },
};

/**
 * One call schedules {@link KERNEL_MOVES} timed moves in one operation and fires them all (the
 * simulator is kept between calls: its construction is not a move's cost). `demoMove` fires the
 * demo service's own `finish`, which also formats a log line per move.
 */
export function kernelMoves(options: { demoMove?: boolean } = {}): () => void {
  const sim = new Simulator({ services: [options.demoMove ? demoDefinition : cheapDefinition] });
  sim.update<DemoState, void>("demo", (ctx) => {
    for (let i = 0; i < KERNEL_MOVES; i++) ctx.state.things[`t${i}`] = { id: `t${i}`, name: "x", createdAt: ctx.now, done: false };
  });
  const payloads = Array.from({ length: KERNEL_MOVES }, (_, i) => `t${i}`);
  return () => {
    sim.update<DemoState, void>("demo", (ctx) => {
      for (let i = 0; i < KERNEL_MOVES; i++) ctx.schedule(ctx.now + kernelDue(i), "finish", payloads[i] as string);
    });
    sim.advance("2m");
    // The demo move's log lines are dropped in place (a read sees the state itself): O(1), not a move's cost.
    if (options.demoMove) sim.read<DemoState, void>("demo", (ctx) => void ((ctx.state as DemoState).log.length = 0));
  };
}

/** The newest modification time (ms) of any file under `dir`. */
function newestUnder(dir: string): number {
  let latest = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    latest = Math.max(latest, entry.isDirectory() ? newestUnder(path) : statSync(path).mtimeMs);
  }
  return latest;
}

/**
 * Builds dist/ (tsup) when one of `files` (paths under the repository `root`) is missing or older
 * than a source file: rows that run the built package or the built CLI call it first.
 * @example builtDist(process.cwd(), ["dist/cli.cjs"])
 */
export function builtDist(root: string, files: readonly string[]): void {
  let dist: number;
  try {
    dist = Math.min(...files.map((file) => statSync(join(root, file)).mtimeMs));
  } catch {
    dist = 0;
  }
  if (dist < newestUnder(join(root, "src"))) execFileSync("npx", ["tsup"], { cwd: root, stdio: "ignore" });
}

