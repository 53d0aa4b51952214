/**
 * Runs timeline steps: `revoke: { runs: <token name> }` (requests bearing it get 401) and `grant`
 * (a user's or team's level on a workspace, `level: null` takes it away), through HTTP on every
 * transport, plus their `/_sim/runs/` routes on the dev server.
 */
import { afterEach, describe, expect, it } from "vitest";
import type { RunningServer } from "../../../src/interceptors/server.js";
import { ScenarioDocumentError } from "../../../src/scenarios/document/errors.js";
import type { TimelineStep } from "../../../src/scenarios/document/types.js";
import { createDoubles } from "../../../src/scenarios/doubles.js";
import { describeEachTransport } from "../../support/transports.js";

const WORLD = `
runs:
  organizations: [{ name: acme }]
  workspaces: [{ name: prod, organization: acme }]
  users:
    - { username: alice, permissions: { prod: admin } }
    - { username: bob }
  teams: [{ name: ops, organization: acme }]
  tokens:
    - { name: alice-token, user: alice }
    - { name: bob-token, user: bob }
    - { name: ops-token, team: ops }
timeline:
  - expect: { path: runs.tokens.alice-token.kind, equals: user }
  - at: 1m
    revoke: { runs: alice-token }
  - expect: { path: runs.tokens.alice-token, equals: null }
  - grant: { workspace: acme/prod, user: bob, level: read }
  - grant: { workspace: prod, team: ops, level: plan }
  - expect: { path: runs.workspaces.prod.latestRun, equals: null }
  - at: 2m
    grant: { workspace: prod, user: bob, level: null }
`;

async function status(url: string, token: string): Promise<number> {
  return (await fetch(url, { headers: { authorization: `Bearer ${token}` } })).status;
}

describeEachTransport("runs timeline steps: revoke and grant", (t) => {
  it("revokes a runs token (401 from then on) and grants and takes away workspace access", async () => {
    const doubles = createDoubles({ scenario: WORLD });
    const { base } = await t.startWith(doubles);
    const names = doubles.scenario!.names.runs;
    const runsOf = `${base("runs")}/workspaces/${names.workspaces["acme/prod"] ?? ""}/runs`;
    expect(await status(runsOf, names.tokens["alice-token"] ?? "")).toBe(200);
    expect(await status(runsOf, names.tokens["bob-token"] ?? "")).toBe(404);
    expect(await status(runsOf, names.tokens["ops-token"] ?? "")).toBe(404);

    const first = doubles.scenario!.play({ until: "1m" });
    expect(first.ok).toBe(true);
    expect(await status(runsOf, names.tokens["alice-token"] ?? "")).toBe(401);
    expect(await status(runsOf, names.tokens["bob-token"] ?? "")).toBe(200);
    expect(await status(runsOf, names.tokens["ops-token"] ?? "")).toBe(200);
    expect(first.lines).toContain(`step 2 [+1m0s 2024-01-01T00:01:00.000Z] revoke {"runs":"alice-token"}`);

    expect(doubles.scenario!.play().ok).toBe(true);
    expect(await status(runsOf, names.tokens["bob-token"] ?? "")).toBe(404);
    expect(await status(runsOf, names.tokens["ops-token"] ?? "")).toBe(200);
  });
});

describe("runs timeline steps: refusals", () => {
  const refusal = (timeline: TimelineStep[]): ScenarioDocumentError => {
    const doubles = createDoubles();
    try {
      doubles.load({ runs: { organizations: [{ name: "acme" }], workspaces: [{ name: "prod", organization: "acme" }], users: [{ username: "bob" }], tokens: [{ name: "t", user: "bob" }] }, timeline }).play();
    } catch (error) {
      return error as ScenarioDocumentError;
    }
    throw new Error("not refused");
  };

  it("refuses a runs token it does not know, an expire of a runs token, and a grant naming both or neither principal", () => {
    expect(refusal([{ revoke: { runs: "nope" } }]).problems).toEqual([{ path: "/timeline/0/revoke/runs", expected: 'no runs token named "nope" (define it under runs.tokens)' }]);
    expect(refusal([{ expire: { runs: "t" } }]).problems[0]?.expected).toMatch(/runs tokens never expire/);
    expect(refusal([{ grant: { workspace: "prod", user: "bob", team: "ops", level: "read" } }]).problems).toEqual([{ path: "/timeline/0/grant", expected: "must name exactly one of user or team" }]);
    expect(refusal([{ grant: { workspace: "prod", user: "bob", level: "owner" as "read" } }]).problems[0]?.path).toBe("/timeline/0/grant/level");
    expect(refusal([{ grant: { workspace: "prod", team: "ops", level: "read" } }]).problems).toEqual([{ path: "/timeline/0/grant/team", expected: 'no team "ops" (define it under runs.teams)' }]);
  });
});

describe("/_sim/runs/ token revocation and grants (dev server)", () => {
  const servers: RunningServer[] = [];
  afterEach(async () => {
    for (const server of servers.splice(0)) await server.close();
  });

  it("DELETE /_sim/runs/tokens/:token revokes; POST /_sim/runs/grants grants and takes away; a bad body is 400 with its pointer", async () => {
    const doubles = createDoubles({ seed: 3, scenario: WORLD });
    const server = await doubles.listen();
    servers.push(server);
    const names = doubles.scenario!.names.runs;
    const runsOf = `${server.url}/api/v2/workspaces/${names.workspaces["acme/prod"] ?? ""}/runs`;
    const sim = (method: string, path: string, body?: unknown) =>
      fetch(`${server.url}/_sim${path}`, { method, ...(body === undefined ? {} : { headers: { "content-type": "application/json" }, body: JSON.stringify(body) }) });

    expect((await sim("DELETE", `/runs/tokens/${encodeURIComponent(names.tokens["alice-token"] ?? "")}`)).status).toBe(204);
    expect(await status(runsOf, names.tokens["alice-token"] ?? "")).toBe(401);

    const granted = await sim("POST", "/runs/grants", { workspace: "prod", user: "bob", level: "write" });
    expect(granted.status).toBe(200);
    expect(await granted.json()).toEqual({ workspace: names.workspaces["acme/prod"], permissions: { [names.users.alice ?? ""]: "admin", [names.users.bob ?? ""]: "write" } });
    expect(await status(runsOf, names.tokens["bob-token"] ?? "")).toBe(200);
    expect((await sim("POST", "/runs/grants", { workspace: "prod", user: "bob", level: null })).status).toBe(200);
    expect(await status(runsOf, names.tokens["bob-token"] ?? "")).toBe(404);

    const bad = await sim("POST", "/runs/grants", { workspace: "prod", user: "carol", level: "read" });
    expect(bad.status).toBe(400);
    expect(JSON.stringify(await bad.json())).toContain('/user: no user \\"carol\\"');
  });
});
