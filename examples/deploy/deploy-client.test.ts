/**
 * The deploy client's tests: the client runs unchanged against infra-doubles through nock, and the
 * client's `sleep` moves the fake's clock, so a run that takes minutes is tested in milliseconds.
 */
import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createDoubles, type Doubles, type NockInterception } from "../../src/index.js";
import { applyAndWait, cancelRun, deploy, DeployError, type DeployTarget } from "./deploy-client.js";

/** A real .tar.gz, made with the system's tar, as a user's build would. */
function makeArchive(files: Record<string, string>): Uint8Array<ArrayBuffer> {
  const dir = mkdtempSync(join(tmpdir(), "deploy-client-"));
  try {
    for (const [name, content] of Object.entries(files)) writeFileSync(join(dir, name), content);
    execFileSync("tar", ["-czf", join(dir, "config.tar.gz"), "-C", dir, ...Object.keys(files)]);
    return new Uint8Array(readFileSync(join(dir, "config.tar.gz")));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

let doubles: Doubles;
let interception: NockInterception;
let target: DeployTarget;
const archive = makeArchive({ "main.tf": 'resource "null_resource" "app" {}\n' });
const sleep = async (ms: number): Promise<void> => {
  doubles.advance(ms);
};

beforeEach(() => {
  doubles = createDoubles({ seed: 7 });
  interception = doubles.intercept();
  const runs = doubles.runs;
  const org = runs.addOrganization("acme");
  const workspace = runs.addWorkspace(org, { name: "prod" });
  const user = runs.addUser({ username: "deployer", permissions: { [workspace.id]: "write" } });
  target = { baseUrl: doubles.baseUrls().runs?.api ?? "", token: runs.issueUserToken(user.id), workspaceId: workspace.id };
});

afterEach(() => interception.stop());

describe("deploy", () => {
  it("uploads the archive, applies the paused run and reports it applied", async () => {
    const statuses: string[] = [];
    const outcome = await deploy(target, { archive, sleep, onStatus: (s) => statuses.push(s) });
    expect(outcome).toMatchObject({ status: "applied", result: "applied", hasChanges: true });
    expect(statuses).toContain("planned");
    const run = doubles.runs.run(outcome.runId);
    const version = doubles.runs.configurationVersion(run.configurationVersionId ?? "");
    expect(Buffer.from(version.archive ?? new Uint8Array()).equals(Buffer.from(archive))).toBe(true);
  });

  it("reports a plan without changes as no-changes and applies nothing", async () => {
    doubles.runs.nextRun(target.workspaceId, { plan: "no-changes" });
    const outcome = await deploy(target, { archive, sleep });
    expect(outcome).toMatchObject({ status: "planned_and_finished", result: "no-changes", hasChanges: false });
  });

  it("stops at a soft-failed policy, then overrides it on request", async () => {
    doubles.runs.nextRun(target.workspaceId, { policyCheck: "soft-fails" });
    const first = await deploy(target, { archive, sleep });
    expect(first).toMatchObject({ status: "policy_override", result: "needs-policy-override" });

    const overridden = await applyAndWait(target, first.runId, { sleep });
    expect(overridden).toMatchObject({ runId: first.runId, status: "applied", result: "applied" });
    expect(doubles.runs.run(first.runId).statusTimestamps).toHaveProperty("policy_override");
  });

  it("overrides a soft-failed policy in one go when asked to", async () => {
    doubles.runs.nextRun(target.workspaceId, { policyCheck: "soft-fails" });
    const outcome = await deploy(target, { archive, sleep, overridePolicies: true });
    expect(outcome).toMatchObject({ status: "applied", result: "applied" });
  });

  it("reports an errored plan", async () => {
    doubles.runs.nextRun(target.workspaceId, { plan: "errors" });
    const outcome = await deploy(target, { archive, sleep });
    expect(outcome).toMatchObject({ status: "errored", result: "errored" });
  });

  it("cancels a run while it is planning", async () => {
    doubles.runs.nextRun(target.workspaceId, { durations: { plan: "5m" } });
    let canceled = false;
    const outcome = await deploy(target, {
      archive,
      sleep,
      onStatus: (status) => {
        if (status === "planning" && !canceled) {
          canceled = true;
          void cancelRun(target, doubles.runs.runsOf(target.workspaceId)[0]?.id ?? "");
        }
      },
    });
    expect(canceled).toBe(true);
    expect(outcome).toMatchObject({ status: "canceled", result: "canceled" });
  });

  it("surfaces the service's 409 when canceling a run that is not planning or applying", async () => {
    doubles.runs.setProgression("manual");
    await expect(deploy(target, { archive, sleep, maxPolls: 3 })).rejects.toThrow(DeployError);
    const run = doubles.runs.runsOf(target.workspaceId)[0];
    expect(run?.status).toBe("pending");
    const error = await cancelRun(target, run?.id ?? "").catch((e: unknown) => e);
    expect(error).toBeInstanceOf(DeployError);
    expect((error as DeployError).status).toBe(409);
  });
});
