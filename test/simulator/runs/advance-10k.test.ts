/**
 * Issue 25 (issue 9's decision 3): `advance()` through 10,000 workspaces, each with one auto-applied
 * run, was made faster in the scheduler and the runs service's moves without changing what it does.
 * This pins what it does: hashes of the whole simulator snapshot (every run, plan, apply, workspace,
 * configuration version, the schedule with its pending moves and their payloads, the id source, the
 * time) midway and at the end, of every traced event in the order the moves traced them, and of
 * the coverage report. The expected hashes were computed on main before the change
 * (commit e2a6d3f); a change of what the runs service stores or traces changes them too, and
 * must then say why in its commit. The timing is a bench row (bench/scale.bench.ts), not a test.
 */
import { createHash, type Hash } from "node:crypto";
import { describe, expect, it } from "vitest";
import { createDoubles, type Doubles } from "../../../src/scenarios/doubles.js";
import type { RunsState } from "../../../src/simulator/runs/state.js";

/** The bench's scenario: `workspaces` auto-apply workspaces, each with an upload that queued one run. */
function scenario(workspaces: number): Doubles {
  const doubles = createDoubles({ seed: 1 });
  const { runs } = doubles;
  const org = runs.addOrganization("acme");
  const user = runs.addUser({ organizationAccess: { acme: "admin" } });
  for (let i = 0; i < workspaces; i++) runs.uploadConfiguration(runs.addWorkspace(org, { name: `ws-${i}`, autoApply: true }).id, { as: user.id });
  return doubles;
}

/** Stored bytes as base64, so the hash covers them. */
const bytes = (_key: string, value: unknown): unknown => (value instanceof Uint8Array ? Buffer.from(value).toString("base64") : value);

const sha256 = (text: string): string => createHash("sha256").update(text).digest("hex");

/** What a 10,000-workspace advance leaves, as hashes (and counts, for a readable failure). */
function advanceThrough(workspaces: number) {
  const doubles = scenario(workspaces);
  const traced: Hash = createHash("sha256");
  let events = 0;
  const stop = doubles.sim.onTrace((service, event) => {
    events++;
    traced.update(`${service} ${JSON.stringify(event)}\n`);
  });
  const versionBefore = doubles.sim.version;
  // Midway: runs in every phase up to planning, moves pending.
  doubles.advance("45s");
  const midway = sha256(JSON.stringify(doubles.sim.snapshot(), bytes));
  const pendingMidway = doubles.sim.read<RunsState, number>("runs", (ctx) => ctx.scheduled().length);
  doubles.advance("1h");
  const end = sha256(JSON.stringify(doubles.sim.snapshot(), bytes));
  stop();
  const statuses = doubles.sim.read<RunsState, Record<string, number>>("runs", (ctx) => {
    const counts: Record<string, number> = {};
    for (const run of Object.values(ctx.state.runs)) counts[run.status] = (counts[run.status] ?? 0) + 1;
    return counts;
  });
  const coverage = sha256(JSON.stringify(doubles.coverage()));
  const moves = doubles.sim.version - versionBefore;
  doubles.close();
  return { moves, pendingMidway, events, statuses, midway, end, trace: traced.digest("hex"), coverage };
}

describe("advance() through 10,000 workspaces x one auto-applied run", () => {
  it("leaves the same state, trace and coverage as before the scheduler's speed-up", () => {
    expect(advanceThrough(10_000)).toEqual({
      moves: 100_000,
      pendingMidway: 10_000,
      events: 100_000,
      statuses: { applied: 10_000 },
      midway: "ef612501e236aef11f3e95c43f92f5f3f25e0b3fda424bbee0b13ee4f8af68a2",
      end: "5c5cfbe33f807a74660928e69a6817dd5c7aece53fc0e980f6db0a95cd3fe3e2",
      trace: "026dccd74dfa076f14095e01256856ca9caff48fda35d95664e39eef61b902e5",
      coverage: "40147c6e02bcfe9993bf5159998a6a0422f157b1471c05598f480c2e53d4ff93",
    });
  }, 120_000);
});
