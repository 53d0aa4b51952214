import { describe, expect, it } from "vitest";
import { DomainError, UsageError } from "../../../src/simulator/kernel/errors.js";
import { authenticate, can, permissionLevel, requireCapability } from "../../../src/simulator/runs/access.js";
import { createEngineVersion, deleteEngineVersion, updateEngineVersion } from "../../../src/simulator/runs/engine-versions.js";
import { createOrganization, createTeam, createToken, createUser, createWorkspace, grant } from "../../../src/simulator/runs/fixtures.js";
import type { RunsState } from "../../../src/simulator/runs/state.js";
import { bare } from "./support.js";

describe("runs simulator: authentication and permissions", () => {
  it("resolves user, team and organization tokens, and refuses unknown ones with unauthenticated", () => {
    const b = bare();
    b.update((ctx) => {
      const team = createTeam(ctx, { organization: "acme", name: "ops" });
      const user = createToken(ctx, { kind: "user", owner: Object.values(ctx.state.users)[0]?.id ?? "" });
      const teamToken = createToken(ctx, { kind: "team", owner: team.id, secret: "team-secret" });
      const orgToken = createToken(ctx, { kind: "organization", owner: "acme" });
      expect(authenticate(ctx.state, user.secret, "x")).toMatchObject({ tokenKind: "user", teamId: null, siteAdmin: false });
      expect(authenticate(ctx.state, teamToken.secret, "x")).toMatchObject({ tokenKind: "team", teamId: team.id, userId: team.serviceAccountUserId });
      expect(authenticate(ctx.state, orgToken.secret, "x")).toMatchObject({ tokenKind: "organization", organization: "acme", userId: null });
      expect(user.secret).toMatch(/^[0-9A-Za-z]{14}\.atlasv1\.[0-9A-Za-z]{67}$/);
      for (const bad of [undefined, "", "nope"]) {
        let caught: unknown;
        try {
          authenticate(ctx.state, bad, "x");
        } catch (error) {
          caught = error;
        }
        expect(caught).toBeInstanceOf(DomainError);
        expect((caught as DomainError).code).toBe("unauthenticated");
      }
    });
  });

  it("takes the highest of direct grants, team grants and organization access", () => {
    const b = bare();
    b.update((ctx) => {
      const ws = ctx.state.workspaces[b.workspaceId];
      if (!ws) throw new Error("no ws");
      const user = createUser(ctx, { username: "u" });
      const caller = authenticate(ctx.state, createToken(ctx, { kind: "user", owner: user.id }).secret, "x");
      expect(permissionLevel(ctx.state, caller, ws)).toBeNull();
      grant(ctx, user.id, ws.id, "read");
      expect(permissionLevel(ctx.state, caller, ws)).toBe("read");
      createTeam(ctx, { organization: "acme", members: [user.id], permissions: { [ws.id]: "write" } });
      expect(permissionLevel(ctx.state, caller, ws)).toBe("write");
      expect(can(ctx.state, caller, ws, "apply-runs")).toBe(true);
      expect(can(ctx.state, caller, ws, "admin")).toBe(false);
      const owner = createUser(ctx, { username: "owner", organizationAccess: { acme: "admin" } });
      const ownerCaller = authenticate(ctx.state, createToken(ctx, { kind: "user", owner: owner.id }).secret, "x");
      expect(permissionLevel(ctx.state, ownerCaller, ws)).toBe("admin");
    });
  });

  it("lets organization tokens read but refuses them the refused operations, and hides other organizations", () => {
    const b = bare();
    b.update((ctx) => {
      createOrganization(ctx, { name: "other" });
      const foreign = createWorkspace(ctx, { organization: "other" });
      const ws = ctx.state.workspaces[b.workspaceId];
      if (!ws) throw new Error("no ws");
      const org = authenticate(ctx.state, createToken(ctx, { kind: "organization", owner: "acme" }).secret, "x");
      expect(() => requireCapability(ctx.state, org, ws, "read-runs", "x", ws.id, { organizationTokens: "allowed" })).not.toThrow();
      expect(() => requireCapability(ctx.state, org, ws, "queue-plans", "x", ws.id, { organizationTokens: "refused" })).toThrow(DomainError);
      expect(() => requireCapability(ctx.state, org, foreign, "read-runs", "x", foreign.id, { organizationTokens: "allowed" })).toThrow(/not found/);
      expect(can(ctx.state, org, ws, "apply-runs")).toBe(false);
    });
  });

  it("refuses fixture misuse with UsageError", () => {
    const b = bare();
    expect(() => b.update((ctx) => createOrganization(ctx, { name: "acme" }))).toThrow(UsageError);
    expect(() => b.update((ctx) => createOrganization(ctx, { name: "bad name" }))).toThrow(/letters, digits/);
    expect(() => b.update((ctx) => createWorkspace(ctx, { organization: "nope" }))).toThrow(/unknown organization/);
    expect(() => b.update((ctx) => createWorkspace(ctx, { organization: "acme", name: "prod" }))).toThrow(/already exists/);
    expect(() => b.update((ctx) => createWorkspace(ctx, { organization: "acme", engineVersion: "0.0.1" }))).toThrow(/unknown engine version/);
    expect(() => b.update((ctx) => createUser(ctx, { username: "alice" }))).toThrow(/taken/);
    expect(() => b.update((ctx) => grant(ctx, "user-nope", b.workspaceId, "read"))).toThrow(/unknown user or team/);
    expect(() => b.update((ctx) => grant(ctx, Object.keys(ctx.state.users)[0] ?? "", b.workspaceId, "owner" as never))).toThrow(/unknown permission level/);
    expect(() => b.update((ctx) => createToken(ctx, { kind: "team", owner: "team-nope" }))).toThrow(/no team/);
    expect(() => b.update((ctx) => createToken(ctx, { kind: "organization", owner: "acme", secret: "a b" }))).toThrow(/spaces/);
  });
});

describe("runs simulator: engine versions", () => {
  const admin = { tokenId: "t", tokenKind: "user" as const, userId: "u", teamId: null, organization: null, siteAdmin: true };
  const input = { version: "3.0.0", url: "https://x.example/e.zip", sha: "c".repeat(64) };

  it("validates, updates in place and deletes only unofficial, unused versions", () => {
    const b = bare();
    const id = b.update((ctx) => createEngineVersion(ctx, admin, input).id);
    expect(() => b.update((ctx) => createEngineVersion(ctx, admin, input))).toThrow(/already been taken/);
    expect(() => b.update((ctx) => createEngineVersion(ctx, { ...admin, siteAdmin: false }, input))).toThrow(/not found/);
    expect(b.update((ctx) => updateEngineVersion(ctx, admin, id, { beta: true }))).toMatchObject({ beta: true, version: "3.0.0", enabled: true });
    b.update((ctx) => createWorkspace(ctx, { organization: "acme", engineVersion: "3.0.0" }));
    expect(() => b.update((ctx) => updateEngineVersion(ctx, admin, id, { version: "3.0.1" }))).toThrow(/used by workspaces/);
    expect(() => b.update((ctx) => deleteEngineVersion(ctx, admin, id))).toThrow(/used by 1 workspace/);
    const state: RunsState = b.state();
    expect(Object.values(state.engineVersions).filter((v) => v.official)).toHaveLength(5);
  });
});
