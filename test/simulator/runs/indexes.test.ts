import { describe, expect, it } from "vitest";
import { createDoubles } from "../../../src/scenarios/doubles.js";
import type { RunsState } from "../../../src/simulator/runs/state.js";

const stateOf = (doubles: ReturnType<typeof createDoubles>): RunsState => doubles.sim.read<RunsState, RunsState>("runs", (ctx) => structuredClone(ctx.state));

describe("runs: lookups kept beside the state (users by username, workspace count)", () => {
  it("numbers default workspace names by the workspaces stored, named ones included", () => {
    const doubles = createDoubles({ seed: 3 });
    const { runs } = doubles;
    const org = runs.addOrganization("acme");
    expect(runs.addWorkspace(org).name).toBe("workspace-1");
    expect(runs.addWorkspace(org, { name: "prod" }).name).toBe("prod");
    expect(runs.addWorkspace(org).name).toBe("workspace-3");
    expect(() => runs.addWorkspace(org, { name: "workspace-4", engineVersion: "0.0.0-none" })).toThrow(/engine version/);
    expect(runs.addWorkspace(org).name).toBe("workspace-4");
  });

  it("refuses a username a VCS push created, and a push reuses a user added by name", () => {
    const doubles = createDoubles({ seed: 3 });
    const { runs } = doubles;
    const ws = runs.addWorkspace(runs.addOrganization("acme"), { vcsRepo: { identifier: "acme/infra" } });
    const alice = runs.addUser({ username: "alice" });
    runs.pushCommit(ws.id, { senderUsername: "hubot" });
    expect(() => runs.addUser({ username: "hubot" })).toThrow(/username "hubot" is taken/);
    expect(() => runs.addUser({ username: "alice" })).toThrow(/username "alice" is taken/);
    const before = Object.keys(stateOf(doubles).users).length;
    runs.pushCommit(ws.id, { senderUsername: "alice" });
    runs.pushCommit(ws.id, { senderUsername: "hubot" });
    const users = stateOf(doubles).users;
    expect(Object.keys(users)).toHaveLength(before);
    expect(users[alice.id]?.username).toBe("alice");
  });

  it("rebuilds the same lookups from the data when a state has none", () => {
    const doubles = createDoubles({ seed: 3 });
    const { runs } = doubles;
    const org = runs.addOrganization("acme");
    runs.addWorkspace(org);
    const ws = runs.addWorkspace(org, { name: "prod", vcsRepo: { identifier: "acme/infra" } });
    runs.addUser({ username: "alice" });
    runs.pushCommit(ws.id, { senderUsername: "hubot" });
    const kept = stateOf(doubles).indexes;
    const snapshot = doubles.snapshot();
    const bare = structuredClone(snapshot.services.runs) as RunsState;
    delete bare.indexes;
    doubles.restore({ ...snapshot, services: { ...snapshot.services, runs: bare } });
    expect(runs.addWorkspace(org).name).toBe("workspace-3");
    expect(() => runs.addUser({ username: "hubot" })).toThrow(/is taken/);
    const rebuilt = stateOf(doubles).indexes;
    expect(rebuilt?.workspaceCount).toBe((kept?.workspaceCount ?? 0) + 1);
    expect(rebuilt?.userByUsername).toEqual(kept?.userByUsername);
  });
});
