/** The testing kit's fixture arbitraries install what they describe, as the API then answers it. */
import fc from "fast-check";
import { expect, it } from "vitest";
import { createDoubles } from "../../src/index.js";
import { installSshRoles, installToken, installWorkspace, sshRoleFixture, tokenFixture, workspaceFixture } from "../../src/testing/fixtures.js";
import { handlerFetch } from "../../src/testing/http.js";

it("a workspace fixture's runs are in the states it asked for, as the run list answers", async () => {
  await fc.assert(
    fc.asyncProperty(workspaceFixture(), async (fixture) => {
      const doubles = createDoubles({ seed: 21 });
      const ws = installWorkspace(doubles, fixture);
      expect(ws.runs.length).toBe(fixture.finished.length + (fixture.paused ? 1 : 0) + fixture.queued);
      const response = await handlerFetch(doubles)(`${doubles.baseUrls().runs.api}/workspaces/${ws.workspaceId}/runs`, { headers: { authorization: `Bearer ${ws.token}` } });
      const listed = ((await response.json()) as { data: { id: string; attributes: { status: string } }[] }).data;
      expect(Object.fromEntries(listed.map((r) => [r.id, r.attributes.status]))).toEqual(Object.fromEntries(ws.runs.map((r) => [r.id, r.status])));
    }),
    { numRuns: 30 },
  );
});

it("a token fixture authorises until its expiry and never after", async () => {
  await fc.assert(
    fc.asyncProperty(tokenFixture(), async (fixture) => {
      const doubles = createDoubles({ seed: 22 });
      const token = installToken(doubles, fixture);
      const self = () => handlerFetch(doubles)(`${doubles.baseUrls().accessControl.api}/acl/token/self`, { headers: { "x-acl-token": token.secretId } });
      expect((await self()).status).toBe(200);
      expect(token.expiresAt).toBe(fixture.ttlMs === null ? null : doubles.now() + fixture.ttlMs);
      doubles.advance((fixture.ttlMs ?? 48 * 3_600_000) - 1);
      expect((await self()).status).toBe(200);
      doubles.advance(1);
      expect((await self()).status).toBe(fixture.ttlMs === null ? 200 : 403);
    }),
    { numRuns: 20 },
  );
});

it("SSH role fixtures are installed and read back through the API", async () => {
  await fc.assert(
    fc.asyncProperty(fc.uniqueArray(sshRoleFixture(), { selector: (r) => r.name, minLength: 1, maxLength: 3 }), async (roles) => {
      const doubles = createDoubles({ seed: 23 });
      installSshRoles(doubles, roles);
      for (const role of roles) {
        const response = await handlerFetch(doubles)(`${doubles.baseUrls().secrets.api}/ssh/roles/${role.name}`, { headers: { "x-vault-token": doubles.secrets.rootToken } });
        expect(((await response.json()) as { data: { key_type: string } }).data.key_type).toBe(role.keyType);
      }
    }),
    { numRuns: 10 },
  );
});
