import { expect, it, vi } from "vitest";
import { describeEachTransport } from "../../support/transports.js";
import { startAcl, uuid, type AclHarness } from "./support.js";

async function blocked(h: AclHarness, count = 1): Promise<void> {
  await vi.waitFor(() => expect(h.doubles.sim.pendingWaiters).toBe(count), { timeout: 5000, interval: 5 });
}

describeEachTransport("access-control: blocking queries", (t) => {
  it("answers the result's index in X-Acl-Index and never 0", async () => {
    const h = await startAcl(t);
    const token = h.acl.createToken({ description: "x" });
    const read = await h.call("GET", `/acl/token/${token.accessorId}`);
    expect(read.headers.get("x-acl-index")).toBe(String(token.modifyIndex));
    const list = await h.call("GET", "/acl/tokens");
    expect(list.headers.get("x-acl-index")).toBe(String(token.modifyIndex));
    const rules = await h.call("GET", "/acl/binding-rules");
    expect([rules.json, rules.headers.get("x-acl-index")]).toEqual([[], "1"]);
    const write = await h.call("PUT", "/acl/token", { body: {} });
    expect(write.headers.get("x-acl-index")).toBeNull();
  });

  it("holds a token read until the token changes", async () => {
    const h = await startAcl(t);
    const token = h.acl.createToken({ description: "v1" });
    const pending = h.call("GET", `/acl/token/${token.accessorId}?index=${token.modifyIndex}&wait=5m`);
    await blocked(h);
    const updated = await h.call("PUT", `/acl/token/${token.accessorId}`, { body: { Description: "v2" } });
    const answer = await pending;
    expect(answer.status).toBe(200);
    expect(answer.json.Description).toBe("v2");
    expect(answer.headers.get("x-acl-index")).toBe(String(updated.json.ModifyIndex));
    expect(h.doubles.sim.pendingWaiters).toBe(0);
  });

  it("releases a blocked list when wait passes on the simulator clock, with the same index", async () => {
    const h = await startAcl(t);
    const first = await h.call("GET", "/acl/tokens");
    const index = first.headers.get("x-acl-index");
    const pending = h.call("GET", `/acl/tokens?index=${index}&wait=30s`);
    await blocked(h);
    h.doubles.advance("29s");
    await new Promise((r) => setTimeout(r, 20));
    expect(h.doubles.sim.pendingWaiters).toBe(1);
    h.doubles.advance("1s");
    const answer = await pending;
    expect(answer.status).toBe(200);
    expect(answer.headers.get("x-acl-index")).toBe(index);
    expect(answer.json).toEqual(first.json);
  });

  it("caps wait at 10 minutes and defaults it to 5 minutes", async () => {
    const h = await startAcl(t);
    const index = (await h.call("GET", "/acl/tokens")).headers.get("x-acl-index");
    const capped = h.call("GET", `/acl/tokens?index=${index}&wait=1h`);
    await blocked(h);
    h.doubles.advance("10m");
    expect((await capped).status).toBe(200);
    const defaulted = h.call("GET", `/acl/tokens?index=${index}`);
    await blocked(h);
    h.doubles.advance("5m");
    expect((await defaulted).status).toBe(200);
  });

  it("releases a blocked list when a token is created, deleted or expires", async () => {
    const h = await startAcl(t);
    const victim = h.acl.createToken({ expirationTtl: "5m" });
    const index = () => h.call("GET", "/acl/tokens").then((a) => a.headers.get("x-acl-index"));
    const afterCreate = h.call("GET", `/acl/tokens?index=${await index()}`);
    await blocked(h);
    const created = (await h.call("PUT", "/acl/token", { body: { Description: "new" } })).json;
    expect((await afterCreate).json.map((x: { AccessorID: string }) => x.AccessorID)).toContain(created.AccessorID);
    const afterDelete = h.call("GET", `/acl/tokens?index=${await index()}`);
    await blocked(h);
    await h.call("DELETE", `/acl/token/${created.AccessorID}`);
    expect((await afterDelete).json.map((x: { AccessorID: string }) => x.AccessorID)).not.toContain(created.AccessorID);
    const afterExpiry = h.call("GET", `/acl/tokens?index=${await index()}&wait=10m`);
    await blocked(h);
    h.doubles.advance("5m");
    await new Promise((r) => setTimeout(r, 20));
    expect(h.doubles.sim.pendingWaiters).toBe(1);
    h.doubles.advance(1);
    expect((await afterExpiry).json.map((x: { AccessorID: string }) => x.AccessorID)).not.toContain(victim.accessorId);
  });

  it("answers at once when the index is already passed, and waits for a missing token to appear", async () => {
    const h = await startAcl(t);
    const token = h.acl.createToken();
    const immediate = await h.call("GET", `/acl/token/${token.accessorId}?index=1&wait=10m`);
    expect(immediate.status).toBe(200);
    expect(h.doubles.sim.pendingWaiters).toBe(0);
    const pending = h.call("GET", `/acl/token/${uuid(77)}?index=1&wait=1m`);
    await blocked(h);
    await h.call("PUT", "/acl/token", { body: { AccessorID: uuid(77) } });
    const answer = await pending;
    expect(answer.status).toBe(200);
    expect(answer.json.AccessorID).toBe(uuid(77));
  });

  it("blocks /acl/token/self and binding-rule reads too", async () => {
    const h = await startAcl(t);
    const token = h.acl.createToken({ description: "me" });
    const self = h.call("GET", `/acl/token/self?index=${token.modifyIndex}`, { token: token.secretId });
    await blocked(h);
    await h.call("PUT", `/acl/token/${token.accessorId}`, { body: { Description: "changed" } });
    expect((await self).json.Description).toBe("changed");
  });

  it("refuses malformed index and wait with 400", async () => {
    const h = await startAcl(t);
    for (const [query, message] of [
      ["index=abc", "Invalid index"],
      ["index=-1", "Invalid index"],
      ["index=5&wait=10", "Invalid wait time"],
      ["index=5&wait=soon", "Invalid wait time"],
    ]) {
      const answer = await h.call("GET", `/acl/tokens?${query}`);
      expect({ query, status: answer.status, text: answer.text }).toEqual({ query, status: 400, text: message });
    }
  });
});
