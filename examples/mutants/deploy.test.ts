/**
 * The deploy client's suite, as a team would write it: every path of the client is exercised
 * through nock against infra-doubles, and the client's `sleep` moves the fake's clock. It looks
 * complete, and every test passes. `infra-doubles mutate` finds two behaviours of the service it
 * would not notice (README.md); kills-the-survivors.test.ts holds the two tests that do.
 */
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createDoubles, type Doubles, type NockInterception } from "../../src/index.js";
import { deploy, DeployError, discardRun, overridePolicy, type DeployTarget } from "./deploy-client.js";
import { archive, world } from "./world.js";

let doubles: Doubles;
let interception: NockInterception;
let target: DeployTarget;
const sleep = async (ms: number): Promise<void> => {
  doubles.advance(ms);
};

beforeEach(() => {
  doubles = createDoubles({ seed: 7 });
  interception = doubles.intercept();
  target = world(doubles);
});

afterEach(async () => {
  interception.stop();
  await doubles.close();
});

describe("deploy", () => {
  it("applies a run with changes once it is planned", async () => {
    const statuses: string[] = [];
    const outcome = await deploy(target, { archive, sleep, onStatus: (s) => statuses.push(s) });
    expect(outcome).toMatchObject({ status: "applied", result: "applied" });
    expect(statuses).toContain("planned");
    expect(statuses).toContain("applying");
  });

  it("reports a plan without changes and applies nothing", async () => {
    doubles.runs.nextRun(target.workspaceId, { plan: "no-changes" });
    const outcome = await deploy(target, { archive, sleep });
    expect(outcome).toMatchObject({ status: "planned_and_finished", result: "no-changes" });
    expect(doubles.journal.count({ route: "POST /runs/:run_id/actions/apply" })).toBe(0);
  });

  it("reports an errored plan", async () => {
    doubles.runs.nextRun(target.workspaceId, { plan: "errors" });
    const outcome = await deploy(target, { archive, sleep });
    expect(outcome).toMatchObject({ status: "errored", result: "errored" });
  });

  it("surfaces the service's 404 for a workspace it cannot see", async () => {
    const error = await deploy({ ...target, workspaceId: "ws-doesnotexist0000" }, { archive, sleep }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(DeployError);
    expect((error as DeployError).status).toBe(404);
  });
});

describe("plans nobody approved", () => {
  it("stops at the plan when asked not to apply, and discards it", async () => {
    const outcome = await deploy(target, { archive, sleep, apply: false });
    expect(outcome).toMatchObject({ status: "planned", result: "planned" });
    await expect(discardRun(target, outcome.runId)).resolves.toBeUndefined();
  });
});

describe("soft-failed policy checks", () => {
  it("stops at a soft-failed policy check and applies nothing", async () => {
    doubles.runs.nextRun(target.workspaceId, { policyCheck: "soft-fails" });
    const outcome = await deploy(target, { archive, sleep });
    expect(outcome).toMatchObject({ status: "policy_override", result: "needs-policy-override" });
    expect(doubles.journal.count({ route: "POST /runs/:run_id/actions/apply" })).toBe(0);
  });

  it("overrides the policy check with the reviewer's reason", async () => {
    doubles.runs.nextRun(target.workspaceId, { policyCheck: "soft-fails" });
    const outcome = await deploy(target, { archive, sleep });
    await overridePolicy(target, outcome.runId, "approved by security, ticket SEC-123");
    expect(doubles.journal.last({ route: "POST /runs/:run_id/actions/apply" })?.body).toEqual({ comment: "approved by security, ticket SEC-123" });
  });
});
