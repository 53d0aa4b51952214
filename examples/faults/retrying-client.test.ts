/**
 * The retrying client's tests, against faults injected into infra-doubles (issue 10 item 5):
 * a 429 with Retry-After, a secrets node sealed for 30 s, and a connection dropped after the
 * server committed. The client's `sleep` moves the fake's clock, so minutes of waiting take
 * milliseconds.
 */
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createDoubles, type Doubles, type NockInterception } from "../../src/index.js";
import { createServiceToken, fetchWithRetries, waitForUnsealed } from "./retrying-client.js";

let doubles: Doubles;
let interception: NockInterception;
const slept: number[] = [];
const sleep = async (ms: number): Promise<void> => {
  slept.push(ms);
  doubles.advance(ms);
};

beforeEach(() => {
  doubles = createDoubles({ seed: 11 });
  interception = doubles.intercept();
  slept.length = 0;
});

afterEach(async () => {
  doubles.faults.clear();
  interception.stop();
  await doubles.close();
});

describe("a client with retries against a 429 with Retry-After", () => {
  it("waits what Retry-After says, then gets the run", async () => {
    const runs = doubles.runs;
    const org = runs.addOrganization("acme");
    const workspace = runs.addWorkspace(org, { name: "prod", vcsRepo: { identifier: "acme/infra" } });
    const user = runs.addUser({ username: "ci", permissions: { [workspace.id]: "write" } });
    const token = runs.issueUserToken(user.id);
    runs.pushCommit(workspace.id); // a VCS push: a configuration version, and a run queued on it
    doubles.advance("10s"); // the push is fetched and its run created
    const runId = runs.runsOf(workspace.id)[0]?.id ?? "";
    expect(runId).toMatch(/^run-/);
    doubles.faults.add({ service: "runs", route: "GET /runs/:run_id", answer: "rate-limited", retryAfter: "2s", times: 2 });

    const response = await fetchWithRetries(`${doubles.baseUrls().runs.api}/runs/${runId}`, { headers: { authorization: `Bearer ${token}` } }, { sleep });

    expect(response.status).toBe(200);
    expect(slept).toEqual([2000, 2000]);
    expect(doubles.handler.journal.map((entry) => [entry.status, entry.fault])).toEqual([
      [429, "fault-1"],
      [429, "fault-1"],
      [200, undefined],
    ]);
  });

  it("gives up after its retries and hands back the last 429", async () => {
    doubles.faults.add({ service: "secrets", route: "GET /sys/health", answer: "rate-limited" });
    const response = await fetchWithRetries(`${doubles.baseUrls().secrets.api}/sys/health`, {}, { sleep, retries: 2 });
    expect(response.status).toBe(429);
    expect(slept).toEqual([1000, 1000]);
  });
});

describe("a secrets node sealed, then unsealed", () => {
  it("polls sys/health until the node serves again, then reads", async () => {
    doubles.faults.add({ service: "secrets", answer: "sealed", until: "30s" });
    const base = doubles.baseUrls().secrets.api;
    const root = { "x-vault-token": doubles.secrets.rootToken };
    expect((await fetch(`${base}/sys/mounts`, { headers: root })).status).toBe(503);

    const polls = await waitForUnsealed(base, { sleep, everyMs: 5000 });

    expect(polls).toBe(7); // at 0, 5, ..., 25 s sealed; at 30 s serving
    expect((await fetch(`${base}/sys/mounts`, { headers: root })).status).toBe(200);
  });
});

describe("a connection dropped after the server committed", () => {
  const setUp = () => {
    const management = doubles.accessControl.bootstrapToken.secretId;
    doubles.faults.add({ service: "accessControl", operation: "create token", connection: "reset", commit: true, times: 1 });
    return { base: doubles.baseUrls().accessControl.api, management };
  };
  const tokensFor = (name: string) => doubles.accessControl.tokens().filter((t) => t.serviceIdentities.some((s) => s.serviceName === name));

  it("a blind retry creates the token twice", async () => {
    const { base, management } = setUp();
    await createServiceToken(base, management, "billing", { safe: false });
    expect(tokensFor("billing")).toHaveLength(2);
  });

  it("a retry with the client's own AccessorID finds the first token and creates no second one", async () => {
    const { base, management } = setUp();
    const accessorId = "6a1253d2-1785-4b4c-8d7b-1d4a4c3f7e10";
    const token = await createServiceToken(base, management, "billing", { safe: true, accessorId });
    expect(token.AccessorID).toBe(accessorId);
    expect(tokensFor("billing").map((t) => t.accessorId)).toEqual([accessorId]);
  });
});
