/**
 * Issue 23, item 2: `PUT /acl/bootstrap` (once, then 403 with the reset index) and
 * `GET /status/leader` / `GET /status/peers`, through HTTP on every transport.
 */
import { expect, it } from "vitest";
import { describeEachTransport } from "../../support/transports.js";
import { startAcl } from "./support.js";

const GLOBAL_MANAGEMENT = "00000000-0000-0000-0000-000000000001";

describeEachTransport("access-control: ACL bootstrap", (t) => {
  it("refuses a bootstrap in a world that starts bootstrapped, naming the reset index", async () => {
    const h = await startAcl(t);
    const bootstrapIndex = h.acl.token(h.acl.bootstrapToken.accessorId)?.createIndex;
    expect(bootstrapIndex).toBe(3);
    const refused = await h.call("PUT", "/acl/bootstrap", { token: null });
    expect([refused.status, refused.text]).toEqual([403, "Permission denied: ACL bootstrap no longer allowed (reset index: 3)"]);
    expect(h.acl.bootstrapStatus).toEqual({ allowed: false, resetIndex: 3 });
  });

  it("bootstraps once after a reset: a management token that works, then refuses a second bootstrap", async () => {
    const h = await startAcl(t);
    const before = h.acl.tokens().length;
    expect(h.acl.resetBootstrap()).toBe(3);
    const made = await h.call("PUT", "/acl/bootstrap", { token: null });
    expect(made.status).toBe(200);
    expect(Object.keys(made.json)).toEqual(["ID", "AccessorID", "SecretID", "Description", "Policies", "Local", "CreateTime", "Hash", "CreateIndex", "ModifyIndex"]);
    expect(made.json).toMatchObject({
      ID: made.json.SecretID,
      Description: "Bootstrap Token (Global Management)",
      Policies: [{ ID: GLOBAL_MANAGEMENT, Name: "global-management" }],
      Local: false,
    });
    expect(made.json.CreateIndex).toBeGreaterThan(3);
    expect(h.acl.tokens()).toHaveLength(before + 1);
    // The new token has full access.
    const self = await h.call("GET", "/acl/token/self", { token: made.json.SecretID });
    expect(self.json.AccessorID).toBe(made.json.AccessorID);
    expect((await h.call("PUT", "/acl/policy", { token: made.json.SecretID, body: { Name: "by-bootstrap" } })).status).toBe(200);
    // A bootstrapped cluster refuses a second bootstrap, naming this bootstrap's index.
    const again = await h.call("PUT", "/acl/bootstrap");
    expect([again.status, again.text]).toEqual([403, `Permission denied: ACL bootstrap no longer allowed (reset index: ${made.json.CreateIndex})`]);
    // The world's own bootstrap token still works.
    expect((await h.call("GET", "/acl/tokens")).status).toBe(200);
  });

  it("answers other methods on /acl/bootstrap with 405 and the real Allow header", async () => {
    const h = await startAcl(t);
    const answer = await h.call("GET", "/acl/bootstrap");
    expect(answer.status).toBe(405);
    expect(answer.headers.get("allow")).toBe("OPTIONS,PUT");
  });
});

describeEachTransport("access-control: status endpoints", (t) => {
  it("answers the leader and the peers: the one simulated server, with no token needed", async () => {
    const h = await startAcl(t);
    const leader = await h.call("GET", "/status/leader", { token: null });
    expect([leader.status, leader.json]).toEqual([200, "127.0.0.1:8300"]);
    expect(leader.headers.get("content-type")).toMatch(/application\/json/);
    const peers = await h.call("GET", "/status/peers", { token: "not-a-secret" });
    expect([peers.status, peers.json]).toEqual([200, ["127.0.0.1:8300"]]);
  });
});
