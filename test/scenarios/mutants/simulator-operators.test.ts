/**
 * The simulator-side mutant operators as a whole: the list derived from the tables (ids unique and
 * stable, descriptions and reaches read from the tables), and every mutant built into doubles that
 * run the default scenario and a short run-through without any exception but the domain's
 * refusals; faithful doubles made after mutated ones answer byte for byte as before.
 */
import { describe, expect, it, vi } from "vitest";
import { ALL_PLUGINS, createDoubles, type Doubles } from "../../../src/scenarios/doubles.js";
import { simulatorMutants } from "../../../src/scenarios/mutants/simulator-operators.js";
import { isDomainError, UsageError } from "../../../src/simulator/kernel/errors.js";
import { transitionLabels } from "../../../src/scenarios/coverage/collector.js";
import { runMachine } from "../../../src/simulator/runs/run-machine.js";

const JSON_API = "application/vnd.api+json";

/** Calls one route through the transport-free handler; the fake's internal-error 500 fails the test. */
async function call(doubles: Doubles, answers: string[], method: string, url: string, headers: Record<string, string>, body?: unknown): Promise<{ status: number; json: unknown }> {
  const bytes = body === undefined ? new Uint8Array() : new TextEncoder().encode(JSON.stringify(body));
  const response = await doubles.handler.handle({ method, url: new URL(url), headers: { ...headers, ...(body === undefined ? {} : { "content-type": headers["content-type"] ?? "application/json" }) }, body: bytes });
  const text = response.body === undefined ? "" : typeof response.body === "string" ? response.body : new TextDecoder().decode(response.body);
  answers.push(`${method} ${url} ${response.status} ${text}`);
  // A 500 the service documents (access control answers its refusals so) is fine; the fake's own bug is not.
  if (response.status >= 500 && text.includes("infra-doubles: internal error")) throw new Error(`${method} ${url} answered ${response.status}: ${text}`);
  let json: unknown;
  try {
    json = text === "" ? undefined : JSON.parse(text);
  } catch {
    json = text;
  }
  return { status: response.status, json };
}

/** Runs a scenario control; a domain refusal or a usage error (the control refusing a state) is fine, anything else is not. */
function tolerate<T>(control: () => T): T | undefined {
  try {
    return control();
  } catch (error) {
    if (isDomainError(error) || error instanceof UsageError) return undefined;
    throw error;
  }
}

/**
 * The default scenario of every service, then a short run-through: a run applied, a run canceled
 * and force-canceled, a run through a cost estimate and a soft-failed policy check then discarded,
 * a VCS commit fetched and its run auto-applied, an access-control token with a TTL, an SSH one-time password lease, STS credentials and a static
 * role. Returns every answer.
 */
async function runThrough(doubles: Doubles): Promise<string[]> {
  const answers: string[] = [];
  const urls = doubles.baseUrls();
  for (const plugin of doubles.registeredPlugins) plugin.defaultScenario?.(doubles.controlsOf(plugin.key), urls[plugin.key] ?? {});
  const runs = doubles.runs;
  const api = urls.runs?.api ?? "";
  const organization = runs.addOrganization("mutants-org", { costEstimationEnabled: true });
  const workspace = runs.addWorkspace(organization, { name: "mutants-ws" });
  const user = runs.addUser({ username: "mutant-user", permissions: { [workspace.id]: "admin" } });
  const headers = { authorization: `Bearer ${runs.issueUserToken(user.id)}`, "content-type": JSON_API };
  const first = tolerate(() => runs.uploadConfiguration(workspace.id, { as: user.id }))?.runId;
  doubles.advance("2m");
  if (first !== undefined) {
    await call(doubles, answers, "GET", `${api}/runs/${first}`, headers);
    await call(doubles, answers, "POST", `${api}/runs/${first}/actions/apply`, headers, { comment: "go" });
    doubles.advance("2m");
    await call(doubles, answers, "GET", `${api}/runs/${first}`, headers);
  }
  const second = tolerate(() => runs.queueRun(workspace.id, { as: user.id }));
  if (second !== undefined) {
    tolerate(() => runs.setRunOutcome(second, { interrupt: "ignored" }));
    doubles.advance("20s");
    await call(doubles, answers, "POST", `${api}/runs/${second}/actions/cancel`, headers);
    doubles.advance("30s");
    await call(doubles, answers, "POST", `${api}/runs/${second}/actions/force-cancel`, headers);
    doubles.advance("1m");
    await call(doubles, answers, "GET", `${api}/runs/${second}`, headers);
  }
  tolerate(() => runs.setWorkspaceOutcome(workspace.id, { policyCheck: "soft-fails", postPlanTasks: true }));
  const third = tolerate(() => runs.queueRun(workspace.id, { as: user.id }));
  doubles.advance("5m");
  if (third !== undefined) {
    await call(doubles, answers, "POST", `${api}/runs/${third}/actions/discard`, headers);
    await call(doubles, answers, "GET", `${api}/workspaces/${workspace.id}/runs`, headers);
  }
  // A VCS-created configuration version: fetched by a timed move, auto-archived when its run ends.
  const vcs = runs.addWorkspace(organization, { name: "mutants-vcs", autoApply: true, vcsRepo: { identifier: "acme/app" } });
  runs.grant(user.id, vcs.id, "admin");
  const pushed = tolerate(() => runs.pushCommit(vcs.id, { message: "Add bucket" }));
  doubles.advance("10m");
  if (pushed !== undefined) await call(doubles, answers, "GET", `${api}/configuration-versions/${pushed.configurationVersionId}`, headers);
  const acl = urls.accessControl?.api ?? "";
  const aclHeaders = { "x-acl-token": doubles.accessControl.bootstrapToken.secretId };
  await call(doubles, answers, "PUT", `${acl}/acl/token`, aclHeaders, { Description: "short", ExpirationTTL: "90s" });
  await call(doubles, answers, "PUT", `${acl}/acl/token`, aclHeaders, { Description: "long", ExpirationTTL: "20h" });
  const secrets = urls.secrets?.api ?? "";
  const secretsHeaders = { "x-secrets-token": doubles.secrets.rootToken };
  await call(doubles, answers, "POST", `${secrets}/ssh/creds/otp-role`, secretsHeaders, { ip: "10.0.0.7" });
  await call(doubles, answers, "GET", `${secrets}/auth/token/lookup-self`, secretsHeaders);
  await call(doubles, answers, "POST", `${secrets}/auth/token/create`, secretsHeaders, { policies: ["default"] });
  await call(doubles, answers, "POST", `${secrets}/cloud/sts/assume`, secretsHeaders, {});
  await call(doubles, answers, "POST", `${secrets}/cloud/static-roles/rotating`, secretsHeaders, { username: "static-user", rotation_period: "45s" });
  doubles.advance("1h");
  return answers;
}

describe("simulatorMutants", () => {
  const mutants = simulatorMutants(ALL_PLUGINS);

  it("derives every operator from the tables, with unique ids", () => {
    const ids = mutants.map((m) => m.id);
    expect(new Set(ids).size).toBe(ids.length);
    const operators = new Set(mutants.map((m) => m.operator));
    for (const operator of ["transition-removed", "transition-redirected", "action-refused", "duration-scaled", "id-format-changed"]) expect(operators).toContain(operator);
    // The three examples of the issue, read from the tables.
    const refused = mutants.find((m) => m.id === "runs:action-refused:run/planned/confirm");
    expect(refused?.description).toBe("`POST /runs/:run_id/actions/apply` answers 409 while the run is `planned`");
    expect(mutants.find((m) => m.id === "runs:transition-redirected:run/planning/plan-done/cost_estimating")?.description).toBe(
      "the run goes from `planning` to `cost_estimating` on `plan-done` instead of `planned`",
    );
    expect(mutants.find((m) => m.id === "runs:transition-redirected:run/applying/apply-done/errored")).toBeDefined();
    expect(mutants.find((m) => m.id === "runs:duration-scaled:force-cancel-cool-off/x0.5")?.description).toBe("the force-cancel cool-off is 5 s instead of 10 s");
    expect(mutants.find((m) => m.id === "runs:id-format-changed:run")?.description).toBe("run ids end in 24 random characters instead of 16; the spec fixes only the prefix `run-` (run-orchestration.md)");
    // Every row of the run table has one removal or refusal, reaching the row's coverage label.
    const labels = [...transitionLabels(runMachine).values()];
    const removals = mutants.filter((m) => (m.operator === "transition-removed" || m.operator === "action-refused") && m.id.includes(":run/"));
    expect(removals.map((m) => (m.reaches[0] as { label: string }).label).sort()).toEqual([...labels].sort());
    // A redirection never leads to the row's own target or back to its source.
    for (const m of mutants.filter((x) => x.operator === "transition-redirected")) {
      const change = m.change.mutation as { from: string; to: string };
      expect(change.to).not.toBe(change.from);
    }
  });

  it("is the same list in every call and in a fresh module graph (another process's)", async () => {
    expect(simulatorMutants(ALL_PLUGINS)).toEqual(mutants);
    vi.resetModules();
    const fresh = (await import("../../../src/scenarios/mutants/simulator-operators.js")).simulatorMutants;
    const plugins = (await import("../../../src/scenarios/doubles.js")).ALL_PLUGINS;
    expect(JSON.stringify(fresh(plugins))).toBe(JSON.stringify(mutants));
  });

  it("builds every mutant into doubles that run the default scenario and a run-through; faithful doubles answer as before", async () => {
    const faithful = await runThrough(createDoubles({ mutant: null }));
    let changed = 0;
    for (const m of mutants) {
      const doubles = createDoubles({ mutant: m.id });
      expect(doubles.mutant?.id).toBe(m.id);
      let answers: string[];
      try {
        answers = await runThrough(doubles);
      } catch (error) {
        throw new Error(`mutant ${m.id}: ${(error as Error).stack ?? String(error)}`, { cause: error });
      }
      if (answers.join("\n") !== faithful.join("\n")) changed++;
    }
    // Most mutants change something this run-through sees (it reaches most rows and limits).
    expect(changed).toBeGreaterThan(mutants.length / 3);
    const after = await runThrough(createDoubles({ mutant: null }));
    expect(after.join("\n")).toBe(faithful.join("\n"));
  }, 600_000);

  it("gives byte-identical answers for the same seed and mutant", async () => {
    for (const id of ["runs:transition-redirected:run/planning/plan-done/cost_estimating", "runs:id-format-changed:run", "secrets:id-format-changed:lease"]) {
      const a = await runThrough(createDoubles({ mutant: id, seed: 9 }));
      const b = await runThrough(createDoubles({ mutant: id, seed: 9 }));
      expect(a.join("\n")).toBe(b.join("\n"));
    }
  });
});
