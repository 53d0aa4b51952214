/**
 * Full `vi.useFakeTimers()` with the `interceptors` transport: nothing between a client and the
 * fake waits on a timer, so a client that polls with `setTimeout` (the deploy example, unchanged)
 * reaches its end under one `advanceTimersByTimeAsync`, polling the same number of times on every
 * run. (Through nock, whose steps wait on timers that fake timers hold, the same client needed
 * hundreds of 1 s steps, and its poll count varied from run to run.)
 */
import { afterEach, describe, expect, it, vi } from "vitest";
import { deploy, type DeployOutcome } from "../../examples/deploy/deploy-client.js";
import { configurationArchive } from "../../src/scenarios/runs/archive.js";
import { createDoubles } from "../../src/scenarios/doubles.js";

afterEach(() => {
  vi.useRealTimers();
});

/** One deploy on fresh doubles and fresh fake timers; the requests the fake answered, in order. */
async function deployUnderFakeTimers(): Promise<{ outcome: DeployOutcome | undefined; requests: string[]; statuses: string[] }> {
  vi.useFakeTimers();
  vi.setSystemTime("2024-03-01T00:00:00Z");
  const doubles = createDoubles({ seed: 7, clock: "fake-timers" });
  using _interception = doubles.intercept({ transport: "interceptors" });
  const { runs } = doubles;
  const workspace = runs.addWorkspace(runs.addOrganization("acme"), { name: "prod" });
  const user = runs.addUser({ username: "deployer", permissions: { [workspace.id]: "write" } });
  const target = { baseUrl: doubles.baseUrls().runs.api, token: runs.issueUserToken(user.id), workspaceId: workspace.id };
  const statuses: string[] = [];
  let outcome: DeployOutcome | undefined;
  const done = deploy(target, { archive: configurationArchive(), pollIntervalMs: 5_000, onStatus: (status) => statuses.push(status) }).then((result) => {
    outcome = result;
  });
  await vi.advanceTimersByTimeAsync(600_000);
  expect(outcome, "the deploy finished inside one advanceTimersByTimeAsync").toBeDefined();
  await done;
  const requests = doubles.handler.journal.map((entry) => `${new Date(entry.at).toISOString()} ${entry.method} ${new URL(entry.url).pathname} ${entry.status}`);
  await doubles.close();
  vi.useRealTimers();
  return { outcome, requests, statuses };
}

describe("the interceptors transport under full vi.useFakeTimers()", () => {
  it("drives a client polling with setTimeout to its end in one advanceTimersByTimeAsync, with the same polls every run", { timeout: 60_000 }, async () => {
    const first = await deployUnderFakeTimers();
    expect(first.outcome).toMatchObject({ status: "applied", result: "applied" });
    const polls = first.requests.filter((line) => / GET \/api\/v2\/runs\/run-/.test(line));
    expect(polls.length).toBeGreaterThan(3);
    expect(first.statuses).toContain("planned");
    for (let round = 0; round < 2; round++) {
      const again = await deployUnderFakeTimers();
      expect(again.requests).toEqual(first.requests);
    }
  });
});
