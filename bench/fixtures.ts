/**
 * Fixtures shared by bench rows: one stored run and the GET that reads it, the request every
 * transport and handler row times (see bench/README.md).
 */
import { createDoubles, type Doubles } from "../src/scenarios/doubles.js";
import type { SimRequest } from "../src/interceptors/http.js";
import { DoublesCore } from "../src/scenarios/doubles-core.js";
import { demoPlugin, type DemoState } from "../test/support/demo-service.js";
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

/** Builds {@link RunGet} (seed 1: the same bytes every time). */
export async function runGet(): Promise<RunGet> {
  const doubles = createDoubles({ seed: 1 });
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
