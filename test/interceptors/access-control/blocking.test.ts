import { describe, expect, it, vi } from "vitest";
import { createAccessControlPlugin } from "../../../src/scenarios/access-control/plugin.js";
import type { AccessControlScenario } from "../../../src/scenarios/access-control/scenario.js";
import { DoublesCore } from "../../../src/scenarios/doubles-core.js";
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
    h.doubles.advance(5 * 60_000 - 1);
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

  it("refuses malformed index and wait with 400 (and no index header)", async () => {
    const h = await startAcl(t);
    for (const [query, message] of [
      ["index=abc", "Invalid index"],
      ["index=-1", "Invalid index"],
      ["index=+5", "Invalid index"],
      ["index=18446744073709551616", "Invalid index"],
      ["index=5&wait=10", "Invalid wait time"],
      ["index=5&wait=soon", "Invalid wait time"],
    ]) {
      const answer = await h.call("GET", `/acl/tokens?${query}`);
      expect({ query, status: answer.status, text: answer.text }).toEqual({ query, status: 400, text: message });
      expect(answer.headers.get("x-acl-index")).toBeNull();
    }
  });

  it("accepts any uint64 index, as Go's ParseUint does, and waits on it", async () => {
    // Regression: indexes above 2^53 used to be refused with 400 Invalid index.
    const h = await startAcl(t);
    const pending = h.call("GET", "/acl/tokens?index=18446744073709551615&wait=1m");
    await blocked(h);
    h.doubles.advance("1m");
    const answer = await pending;
    expect(answer.status).toBe(200);
  });

  it("answers a refused blocking read at once, with X-Acl-Index 1 like the real service", async () => {
    // Regression: 403 answers of blocking endpoints carried no index header.
    const h = await startAcl(t);
    const nobody = h.acl.createToken({ description: "no rights" });
    for (const path of ["/acl/tokens", `/acl/token/${nobody.accessorId}`, "/acl/binding-rules"]) {
      const answer = await h.call("GET", `${path}?index=100&wait=5m`, { token: nobody.secretId });
      expect({ path, status: answer.status, index: answer.headers.get("x-acl-index") }).toEqual({ path, status: 403, index: "1" });
    }
    const unknown = await h.call("GET", "/acl/tokens?index=100", { token: uuid(99) });
    expect([unknown.status, unknown.text, unknown.headers.get("x-acl-index")]).toEqual([403, "ACL not found", "1"]);
    expect(h.doubles.sim.pendingWaiters).toBe(0);
  });

  it("parses wait as a Go duration (10s, 1m, 1m30s, 500ms), defaulting non-positive waits to 5m", async () => {
    const h = await startAcl(t);
    const index = (await h.call("GET", "/acl/tokens")).headers.get("x-acl-index");
    for (const [wait, ms] of [["10s", 10_000], ["1m", 60_000], ["1m30s", 90_000], ["500ms", 500], ["0s", 300_000], ["-1m", 300_000]] as const) {
      const pending = h.call("GET", `/acl/tokens?index=${index}&wait=${wait}`);
      await blocked(h);
      h.doubles.advance(ms - 1);
      await new Promise((r) => setTimeout(r, 10));
      expect({ wait, waiting: h.doubles.sim.pendingWaiters }).toEqual({ wait, waiting: 1 });
      h.doubles.advance(1);
      expect((await pending).status).toBe(200);
    }
  });
});

describe("access-control: blocking queries and clients that go away", () => {
  // Server only: under nock 14 the reply function sees a copy of the request without its abort
  // signal, so an abort cannot be observed there (docs/decisions/transports.md).
  it("frees the waiter when the client aborts a blocked read (via server)", async () => {
    const doubles = new DoublesCore([createAccessControlPlugin()], { seed: 1 });
    const base = `${(await doubles.listen()).url}/v1`;
    try {
      const acl = doubles.controlsOf<AccessControlScenario>("accessControl");
      const controller = new AbortController();
      const pending = fetch(`${base}/acl/tokens?index=999&wait=10m`, {
        headers: { "X-Acl-Token": acl.bootstrapToken.secretId },
        signal: controller.signal,
      }).catch((error: Error) => error.name);
      await vi.waitFor(() => expect(doubles.sim.pendingWaiters).toBe(1), { timeout: 5000, interval: 5 });
      controller.abort();
      expect(await pending).toBe("AbortError");
      await vi.waitFor(() => expect(doubles.sim.pendingWaiters).toBe(0), { timeout: 5000, interval: 5 });
    } finally {
      await doubles.close();
    }
  });
});
