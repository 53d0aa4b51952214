/**
 * Choosing a service mutant (issue 27 item 1): a mutant is part of the build. The `mutant` option,
 * `INFRA_DOUBLES_MUTANT`, a scenario document's `mutant` key, `serve --mutant`, and a world's
 * `POST /_sim/worlds {"mutant"}` each build a world as the mutant; `GET /_sim/mutants` lists the
 * catalogue and names the world's. Unknown ids are refused by name; a document naming another
 * mutant than the doubles' is refused at `/mutant`.
 */
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { ALL_PLUGINS, createDoubles, type Doubles } from "../../../src/scenarios/doubles.js";
import { mutantsOf } from "../../../src/scenarios/mutants/catalogue.js";
import { MUTANT_ENV } from "../../../src/scenarios/mutants/types.js";
import { mutantSnippet } from "../../../src/scenarios/mutants/snippet.js";
import { ScenarioDocumentError } from "../../../src/scenarios/document/errors.js";
import { describeEachTransport } from "../../support/transports.js";
import { startRuns, type RunsWorld } from "../../interceptors/runs/support.js";
import { launch, runToEnd } from "../../cli/launch.js";

/** The refusal of `apply` while the run is planned: a user action's row removed. */
const APPLY_REFUSED = "runs:action-refused:run/planned/confirm";
const TOKEN = "x-infra-doubles-control-token";

let saved: string | undefined;
beforeEach(() => {
  saved = process.env[MUTANT_ENV];
  delete process.env[MUTANT_ENV];
});
afterEach(() => {
  if (saved === undefined) delete process.env[MUTANT_ENV];
  else process.env[MUTANT_ENV] = saved;
});

async function pausedRun(w: RunsWorld): Promise<string> {
  const { runId } = await w.upload();
  w.doubles.advance("1m");
  expect(w.runs.run(runId ?? "").status).toBe("planned");
  return runId ?? "";
}

describe("the mutant option and the environment variable", () => {
  it("names the mutant a doubles was built as; the faithful fake has none", () => {
    expect(createDoubles().mutant).toBeUndefined();
    const doubles = createDoubles({ mutant: APPLY_REFUSED });
    expect(doubles.mutant?.id).toBe(APPLY_REFUSED);
    expect(doubles.mutant?.operator).toBe("action-refused");
    process.env[MUTANT_ENV] = APPLY_REFUSED;
    expect(createDoubles().mutant?.id).toBe(APPLY_REFUSED);
    expect(createDoubles({ mutant: null }).mutant).toBeUndefined();
  });

  it("refuses an unknown id by name, and names the variable when it came from there", () => {
    expect(() => createDoubles({ mutant: "runs:no-such-operator:x" })).toThrow(/no mutant "runs:no-such-operator:x"/);
    process.env[MUTANT_ENV] = "runs:no-such-operator:x";
    expect(() => createDoubles()).toThrow(/no mutant "runs:no-such-operator:x".*INFRA_DOUBLES_MUTANT/);
    expect(() => createDoubles({ mutant: null })).not.toThrow();
    expect(() => createDoubles({ mutant: 5 as never })).toThrow(/option "mutant" must be a mutant id/);
  });

  it("an empty variable is the faithful fake; a mutant of a service these doubles do not simulate leaves them faithful", async () => {
    process.env[MUTANT_ENV] = "";
    expect(createDoubles().mutant).toBeUndefined();
    const secrets = mutantsOf(ALL_PLUGINS, { services: ["secrets"] })[0];
    expect(secrets).toBeDefined();
    process.env[MUTANT_ENV] = secrets?.id ?? "";
    const { DoublesCore } = await import("../../../src/scenarios/doubles-core.js");
    const { runsPlugin } = await import("../../../src/scenarios/runs/plugin.js");
    expect(new DoublesCore([runsPlugin]).mutant).toBeUndefined();
  });
});

describeEachTransport("a mutant chosen by INFRA_DOUBLES_MUTANT", (h) => {
  it("changes what the client receives, with no change to the test's code", async () => {
    const faithful = await startRuns(h);
    const runId = await pausedRun(faithful);
    expect((await faithful.api("POST", `/runs/${runId}/actions/apply`, { token: faithful.writer })).status).toBe(202);
    process.env[MUTANT_ENV] = APPLY_REFUSED;
    const w = await startRuns(h, { host: "mutated.run-orchestration.test" });
    expect(w.doubles.mutant?.id).toBe(APPLY_REFUSED);
    const mutated = await pausedRun(w);
    const refused = await w.api("POST", `/runs/${mutated}/actions/apply`, { token: w.writer });
    expect(refused.status).toBe(409);
    expect(refused.body).toMatchObject({ errors: [{ status: "409" }] });
    expect(w.runs.run(mutated).status).toBe("planned");
  });
});

describe("a scenario document's mutant key", () => {
  it("builds the doubles as its mutant", () => {
    const doubles = createDoubles({ scenario: { mutant: APPLY_REFUSED, runs: { organizations: [{ name: "acme" }] } } });
    expect(doubles.mutant?.id).toBe(APPLY_REFUSED);
    expect(createDoubles({ scenario: `mutant: "${APPLY_REFUSED}"\n` }).mutant?.id).toBe(APPLY_REFUSED);
  });

  it("is refused at /mutant when loaded into doubles built as another (or none), and nothing is loaded", () => {
    const doubles: Doubles = createDoubles();
    const before = JSON.stringify(doubles.snapshot());
    let error: unknown;
    try {
      doubles.load({ mutant: APPLY_REFUSED, runs: { organizations: [{ name: "acme" }] } });
    } catch (caught) {
      error = caught;
    }
    expect(error).toBeInstanceOf(ScenarioDocumentError);
    expect((error as ScenarioDocumentError).problems[0]?.path).toBe("/mutant");
    expect(String((error as Error).message)).toMatch(/the faithful fake/);
    expect(JSON.stringify(doubles.snapshot())).toBe(before);
    const same = createDoubles({ mutant: APPLY_REFUSED });
    expect(() => same.load({ mutant: APPLY_REFUSED })).not.toThrow();
  });

  it("the snippet a report prints is a document that builds the mutant", () => {
    const mutant = mutantsOf(ALL_PLUGINS).find((m) => m.id === APPLY_REFUSED);
    expect(mutant).toBeDefined();
    const snippet = mutantSnippet(mutant as never);
    expect(snippet).toMatch(/^# your suite passes when /);
    expect(createDoubles({ scenario: snippet }).mutant?.id).toBe(APPLY_REFUSED);
  });
});

describe("the dev server", () => {
  async function json(url: string, init: RequestInit = {}): Promise<{ status: number; body: Record<string, unknown> }> {
    const response = await fetch(url, init);
    return { status: response.status, body: (await response.json()) as Record<string, unknown> };
  }

  it("serve --mutant builds the world as the mutant: the start line, GET /_sim/mutants and the answers say so", async () => {
    const run = launch(["serve", "--port", "0", "--json", "--seed", "3", "--mutant", APPLY_REFUSED]);
    const line = await run.started();
    try {
      expect(line.mutant).toMatchObject({ id: APPLY_REFUSED });
      const listed = await json(`${line.url}/_sim/mutants?service=runs&operator=action-refused`);
      expect(listed.status).toBe(200);
      expect(listed.body.current).toMatchObject({ id: APPLY_REFUSED, service: "runs", operator: "action-refused" });
      const ids = (listed.body.mutants as { id: string; operator: string }[]).map((m) => m.id);
      expect(ids).toEqual(mutantsOf(ALL_PLUGINS, { services: ["runs"], operators: ["action-refused"] }).map((m) => m.id));
      expect(listed.body.total).toBe(ids.length);
      const one = await json(`${line.url}/_sim/mutants/${encodeURIComponent(APPLY_REFUSED)}`);
      expect(one.body.snippet).toContain(`mutant: "${APPLY_REFUSED}"`);
      expect((await json(`${line.url}/_sim/mutants/nope`)).status).toBe(404);
      expect((await json(`${line.url}/_sim/mutants?service=access-control`)).status).toBe(400);
      expect((await json(`${line.url}/_sim/mutants?operator=typo`)).status).toBe(400);
    } finally {
      run.signals.emit("SIGTERM");
      await run.exit;
    }
  });

  it("refuses an unknown --mutant with a usage error before binding a port", async () => {
    const { code, stderr } = await runToEnd(["serve", "--port", "0", "--mutant", "runs:nope"]);
    expect(code).toBe(2);
    expect(stderr).toMatch(/no mutant "runs:nope"/);
    expect((await runToEnd(["serve", "--mutant", " "])).code).toBe(2);
  });

  it("POST /_sim/worlds {mutant} builds one world as the mutant; the server and other worlds stay faithful; a bad mutant is a 400", async () => {
    const run = launch(["serve", "--port", "0", "--json", "--seed", "3"]);
    const line = await run.started();
    try {
      const post = (body: unknown) => json(`${line.url}/_sim/worlds`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) });
      const mutated = await post({ mutant: APPLY_REFUSED });
      expect(mutated.status).toBe(201);
      expect(mutated.body.mutant).toMatchObject({ id: APPLY_REFUSED });
      const seen = await json(`${String(mutated.body.url)}/_sim/mutants`, { headers: { [TOKEN]: String(mutated.body.controlToken) } });
      expect((seen.body.current as { id: string }).id).toBe(APPLY_REFUSED);
      const faithful = await post({});
      expect(faithful.body.mutant).toBeUndefined();
      expect((await json(`${line.url}/_sim/mutants`)).body.current).toBeNull();
      for (const bad of [{ mutant: 5 }, { mutant: "" }, { mutant: "runs:nope" }]) {
        const refused = await post(bad);
        expect(refused.status).toBe(400);
      }
    } finally {
      run.signals.emit("SIGTERM");
      await run.exit;
    }
  });
});
