/**
 * Scenario timelines: steps at simulated times that advance, change node state, script the next
 * run, queue runs, revoke and expire tokens, and `expect` steps; the transcript is deterministic.
 */
import { describe, expect, it } from "vitest";
import { createDoubles } from "../../../src/scenarios/doubles.js";
import { ScenarioDocumentError } from "../../../src/scenarios/document/errors.js";
import { parsePath } from "../../../src/scenarios/document/expect.js";
import { describeEachTransport } from "../../support/transports.js";

const TIMELINE = `
runs:
  organizations: [{ name: acme }]
  workspaces: [{ name: prod, organization: acme, autoApply: true }]
  users: [{ username: alice, permissions: { prod: admin } }]
  tokens: [{ name: alice-token, user: alice }]
accessControl:
  policies: [{ name: acl-read, rules: 'acl = "read"' }]
  tokens: [{ name: reader, policies: [acl-read], expirationTtl: 20m }]
secrets:
  tokens:
    - { name: short, ttl: 2m }
    - { name: doomed }
timeline:
  - nextRun: { workspace: acme/prod, plan: no-changes }
  - uploadConfiguration: { workspace: prod, as: alice, name: first }
  - at: 1m
    expect: { path: runs.runs.first.status, matches: "^(planning|planned|pending|fetching|queuing|plan_queued)" }
  - at: 10m
    expect: { path: runs.runs.first.status, equals: planned_and_finished }
  - expect: { path: 'runs.workspaces["acme/prod"].latestRun.id', matches: "^run-" }
  - expect: { path: accessControl.access.reader, equals: read }
  - expire: { accessControl: reader }
  - expect: { path: accessControl.tokens.reader, equals: null }
  - expire: { secrets: short }
  - expect: { path: secrets.tokens.short, exists: false }
  - revoke: { secrets: doomed }
  - expect: { path: secrets.tokens.doomed, exists: false }
  - at: 30m
    nodeState: sealed
  - expect: { path: secrets.nodeState, equals: sealed }
  - expect: { path: clock.now, equals: "2024-01-01T00:30:00.000Z" }
`;

describe("scenario timelines", () => {
  it("plays every step at its time and passes its expectations", () => {
    const doubles = createDoubles({ scenario: TIMELINE });
    const transcript = doubles.scenario?.play();
    expect(transcript?.lines.join("\n")).not.toContain("FAILED");
    expect(transcript?.ok).toBe(true);
    expect(transcript?.passed).toBe(9);
    expect(transcript?.lines[2]).toMatch(/^step 3 \[\+1m0s 2024-01-01T00:01:00\.000Z\] expect runs\.runs\.first\.status matches/);
  });

  it("gives byte-identical transcripts for the same document and seed", () => {
    const play = (seed: number): string => createDoubles({ seed, scenario: TIMELINE }).scenario?.play().lines.join("\n") ?? "";
    expect(play(5)).toBe(play(5));
  });

  it("reports a failed expectation with the step and the actual value, and goes on", () => {
    const doubles = createDoubles({
      scenario: {
        timeline: [
          { expect: { path: "secrets.nodeState", equals: "sealed" } },
          { at: "1m", nodeState: "sealed" },
          { expect: { path: "secrets.nodeState", equals: "sealed" } },
        ],
      },
    });
    const transcript = doubles.scenario?.play();
    expect(transcript?.ok).toBe(false);
    expect(transcript?.failed).toBe(1);
    expect(transcript?.lines[0]).toBe('step 1 [+0s 2024-01-01T00:00:00.000Z] expect secrets.nodeState equals "sealed": FAILED, actual "active"');
    expect(transcript?.steps[0]?.expectation?.actual).toBe("active");
    expect(transcript?.lines[2]).toMatch(/: ok$/);
  });

  it("plays up to a time and goes on from there on the next call", () => {
    const doubles = createDoubles({ scenario: { timeline: [{ at: "1m", nodeState: "standby" }, { at: "5m", nodeState: "sealed" }] } });
    expect(doubles.scenario?.play({ until: "2m" }).steps.length).toBe(1);
    expect(doubles.secrets.nodeState).toBe("standby");
    expect(doubles.scenario?.play().steps.map((s) => s.number)).toEqual([2]);
    expect(doubles.secrets.nodeState).toBe("sealed");
  });

  it("refuses a step naming an unknown token or an unknown path root, at the step's pointer", () => {
    const unknownToken = createDoubles({ scenario: { timeline: [{ revoke: { secrets: "nope" } }] } });
    expect(() => unknownToken.scenario?.play()).toThrow(ScenarioDocumentError);
    try {
      unknownToken.scenario?.play();
    } catch (error) {
      expect((error as ScenarioDocumentError).path).toBe("/timeline/0/revoke/secrets");
    }
    const badPath = createDoubles({ scenario: { timeline: [{ expect: { path: "weather.today", equals: 1 } }] } });
    expect(() => badPath.scenario?.play()).toThrow(/timeline\/0\/expect\/path: a path from clock/);
  });

  it("reads paths with dots, indexes and quoted names", () => {
    expect(parsePath('runs.workspaces["acme/prod"].runs[0].status')).toEqual(["runs", "workspaces", "acme/prod", "runs", 0, "status"]);
    expect(parsePath("secrets.ssh[ssh].roles[otp-role].port")).toEqual(["secrets", "ssh", "ssh", "roles", "otp-role", "port"]);
    expect(() => parsePath("a..b")).toThrow(/expected a name/);
  });
});

describeEachTransport("scenario faults through HTTP", (t) => {
  it("adds the document's faults after its fixtures, and the timeline injects and clears more", async () => {
    const doubles = createDoubles({
      scenario: {
        faults: [{ id: "sealed-once", service: "secrets", answer: "sealed", times: 1 }],
        timeline: [
          { at: "1m", fault: { id: "limited", service: "accessControl", answer: "rate-limited" } },
          { expect: { path: "faults.limited.answer", equals: "rate-limited" } },
          { at: "2m", clearFault: "limited" },
          { expect: { path: "faults.limited", equals: null } },
        ],
      },
    });
    const { base } = await t.startWith(doubles);
    expect((await fetch(`${base("secrets")}/sys/health`)).status).toBe(503);
    expect((await fetch(`${base("secrets")}/sys/health`)).status).toBe(200);
    expect(doubles.scenario?.play({ until: "1m" }).ok).toBe(true);
    expect((await fetch(`${base("accessControl")}/acl/policies`)).status).toBe(429);
    expect(doubles.scenario?.play().ok).toBe(true);
    expect((await fetch(`${base("accessControl")}/acl/policies`)).status).not.toBe(429);
  });

  it("refuses a fault the fault set refuses, at its pointer, and keeps nothing of the document", () => {
    const doubles = createDoubles();
    expect(() => doubles.load({ runs: { organizations: [{ name: "acme" }] }, faults: [{ service: "runs", answer: "sealed" }] })).toThrow(/\/faults\/0\/answer: faults.add: /);
    expect(doubles.faults.list()).toEqual([]);
    expect(() => doubles.runs.addOrganization("acme")).not.toThrow();
  });
});

describeEachTransport("scenario timelines through HTTP", (t) => {
  it("leaves the world the timeline made for the code under test", async () => {
    const doubles = createDoubles({ scenario: TIMELINE });
    const { base } = await t.startWith(doubles);
    doubles.scenario?.play();
    const names = doubles.scenario?.names;
    const run = await fetch(`${base("runs")}/runs/${names?.runs.runs.first ?? ""}`, { headers: { authorization: `Bearer ${names?.runs.tokens["alice-token"] ?? ""}` } });
    expect(((await run.json()) as { data: { attributes: { status: string } } }).data.attributes.status).toBe("planned_and_finished");
    expect((await fetch(`${base("secrets")}/sys/health`)).status).toBe(503);
    const self = await fetch(`${base("accessControl")}/acl/token/self`, { headers: { "x-consul-token": names?.accessControl.tokens.reader?.secretId ?? "" } });
    expect(self.status).toBe(403);
  });
});
