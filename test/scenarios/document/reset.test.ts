/**
 * One reset (issue 22 item 9): `doubles.reset()` and `POST /_sim/reset` go back to the world the
 * scenario document built, the clock at its start, the document's faults (those added later gone),
 * and an empty journal; `serve --scenario`, `run` and `createDoubles` give the same ids for the
 * same document and seed; control errors name their route.
 */
import { afterEach, describe, expect, it } from "vitest";
import type { RunningServer } from "../../../src/interceptors/server.js";
import { createDoubles, type Doubles } from "../../../src/scenarios/doubles.js";

const START = Date.UTC(2024, 0, 1);

/** A token living 10 minutes, a fault of the document's own, an organization. */
const DOCUMENT = `
runs:
  organizations: [{ name: acme }]
accessControl:
  policies: [{ name: reader, rules: 'acl = "read"' }]
  tokens: [{ name: ci, policies: [reader], expirationTtl: 10m }]
faults:
  - { id: doc-fault, service: secrets, answer: sealed, times: 1 }
`;

const servers: RunningServer[] = [];
afterEach(async () => {
  for (const server of servers.splice(0)) await server.close();
});

/** What reset must give back, read the same way after creation and after reset. */
function world(doubles: Doubles) {
  const ci = doubles.scenario?.names.accessControl.tokens.ci;
  return {
    now: doubles.now(),
    ciLive: ci === undefined ? false : doubles.accessControl.token(ci.accessorId) !== undefined,
    faults: doubles.faults.list().map((f) => `${f.id} seen ${f.seen}`),
    journal: doubles.journal.size,
  };
}

/** Spends the world: time passes (the token expires), a fault is used and another added, a request made. */
async function spend(doubles: Doubles, url: (path: string) => string): Promise<void> {
  doubles.advance("1h");
  doubles.runs.addOrganization("later");
  doubles.faults.add({ id: "test-fault", service: "runs", answer: "unavailable" });
  expect((await fetch(url("/v1/sys/health"))).status).toBe(503);
  expect(doubles.journal.size).toBeGreaterThan(0);
}

describe("doubles.reset() and POST /_sim/reset: one reset", () => {
  it("doubles.reset(): the document's world, the clock at its start, its faults only, the journal empty", async () => {
    const doubles = createDoubles({ seed: 3, scenario: DOCUMENT });
    using _nock = doubles.intercept({ transport: "interceptors" });
    const before = world(doubles);
    expect(before).toEqual({ now: START, ciLive: true, faults: ["doc-fault seen 0"], journal: 0 });
    await spend(doubles, (path) => `${doubles.baseUrls().secrets.api.replace(/\/v1$/, "")}${path}`);
    expect(world(doubles).ciLive).toBe(false);
    doubles.reset();
    expect(world(doubles)).toEqual(before);
    expect(() => doubles.runs.addOrganization("later")).not.toThrow();
    // The document's fault applies again, once.
    expect((await fetch(`${doubles.baseUrls().secrets.api}/sys/health`)).status).toBe(503);
    expect((await fetch(`${doubles.baseUrls().secrets.api}/sys/health`)).status).toBe(200);
    // The schedule came back with the clock: the token's expiry fires again at its own time.
    doubles.advance("9m59s");
    expect(world(doubles).ciLive).toBe(true);
    doubles.advance("1s");
    expect(world(doubles).ciLive).toBe(false);
  });

  it("POST /_sim/reset does the same, on a manual and on an advanceable clock", async () => {
    for (const clock of ["manual", "advanceable"] as const) {
      const doubles = createDoubles({ seed: 3, clock, start: START, scenario: DOCUMENT });
      const server = await doubles.listen({ port: 0 });
      servers.push(server);
      const before = world(doubles);
      await spend(doubles, (path) => `${server.url}${path}`);
      const answer = await fetch(`${server.url}/_sim/reset`, { method: "POST", headers: { "content-type": "application/json" } });
      const body = (await answer.json()) as { epochMs: number };
      expect(answer.status).toBe(200);
      const after = world(doubles);
      if (clock === "manual") {
        expect(body.epochMs).toBe(START);
        expect(after).toEqual(before);
      } else {
        // Real time runs on from the start again: within a few seconds of it, never an hour on.
        expect(body.epochMs - START).toBeLessThan(5_000);
        expect({ ...after, now: 0 }).toEqual({ ...before, now: 0 });
      }
      // The token the document made lives again: it authorizes a request right after the reset.
      const ci = doubles.scenario?.names.accessControl.tokens.ci?.secretId ?? "";
      expect((await fetch(`${server.url}/v1/acl/token/self`, { headers: { "x-acl-token": ci } })).status).toBe(200);
    }
  });

  it("names the route in control errors, not /", async () => {
    const doubles = createDoubles({ seed: 3 });
    const server = await doubles.listen({ port: 0 });
    servers.push(server);
    const post = async (path: string, body: string) =>
      (await (await fetch(`${server.url}${path}`, { method: "POST", headers: { "content-type": "application/json" }, body })).json()) as { error: { message: string } };
    expect((await post("/_sim/scenario", '{"runs": {"organisations": []}}')).error.message).toMatch(/^_sim: cannot POST \/_sim\/scenario: /);
    expect((await post("/_sim/runs/teams", '{"name": 3}')).error.message).toMatch(/^_sim: cannot POST \/_sim\/runs\/teams: /);
  });
});
