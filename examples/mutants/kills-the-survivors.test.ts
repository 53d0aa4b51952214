/**
 * The two tests deploy.test.ts lacked: each checks what a discard and an override are for, not
 * only that the client sent them. With them, `infra-doubles mutate` reports no survivor
 * (README.md). The client is unchanged: its "409 means already done" reading is what hid the two
 * behaviours from the first suite.
 */
import { afterEach, beforeEach, expect, it } from "vitest";
import { createDoubles, type Doubles, type NockInterception } from "../../src/index.js";
import { deploy, discardRun, overridePolicy, waitForRun, type DeployTarget } from "./deploy-client.js";
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

// Kills the mutants where discard answers 409 (runs:status-swapped:POST /runs/:run_id/actions/discard/conflict,
// runs:action-refused:run/planned/discard): the planned run would keep the workspace, and the
// next run would wait behind it.
it("a discarded plan frees the workspace: the next deploy applies", async () => {
  const first = await deploy(target, { archive, sleep, apply: false });
  await discardRun(target, first.runId);
  expect(await waitForRun(target, first.runId, { sleep })).toMatchObject({ status: "discarded", result: "discarded" });

  const next = await deploy(target, { archive, sleep, maxPolls: 60 });
  expect(next).toMatchObject({ status: "applied", result: "applied" });
});

// Kills the mutant where apply answers 409 while the run is `policy_override`
// (runs:action-refused:run/policy_override/confirm): the run would stay waiting for an override.
it("an overridden policy check ends with the run applied", async () => {
  doubles.runs.nextRun(target.workspaceId, { policyCheck: "soft-fails" });
  const stopped = await deploy(target, { archive, sleep });
  await overridePolicy(target, stopped.runId, "approved by security, ticket SEC-123");
  expect(await waitForRun(target, stopped.runId, { sleep })).toMatchObject({ status: "applied", result: "applied" });
});
