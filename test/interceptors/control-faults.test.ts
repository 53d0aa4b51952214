/**
 * `/_sim/faults` on the local server: add a fault with a JSON POST, list, remove one, clear;
 * bad definitions get the control API's 400 shape; the control API's protections (JSON content
 * type, Host check, control token) hold. Issue 10 item 1.
 */
import { afterEach, describe, expect, it } from "vitest";
import { createDoubles, type Doubles } from "../../src/scenarios/doubles.js";
import type { RunningServer } from "../../src/interceptors/server.js";

let doubles: Doubles | undefined;
afterEach(async () => {
  await doubles?.close();
  doubles = undefined;
});

async function serve(options: { controlToken?: string } = {}): Promise<{ server: RunningServer; d: Doubles }> {
  const d = (doubles = createDoubles({ seed: 2 }));
  const server = await d.listen(options);
  return { server, d };
}

const jsonPost = (url: string, body: unknown, headers: Record<string, string> = {}) =>
  fetch(url, { method: "POST", headers: { "content-type": "application/json", ...headers }, body: typeof body === "string" ? body : JSON.stringify(body) });

describe("/_sim/faults", () => {
  it("adds a fault that the service then applies, lists it with its counts, removes it", async () => {
    const { server, d } = await serve();
    const added = await jsonPost(`${server.url}/_sim/faults`, { service: "secrets", route: "GET /sys/health", answer: "sealed", times: 1, until: "1m" });
    expect(added.status).toBe(201);
    expect(await added.json()).toEqual({
      fault: { id: "fault-1", service: "secrets", route: "GET /sys/health", answer: "sealed", times: 1, until: "2024-01-01T00:01:00.000Z", seen: 0, applied: 0, exhausted: false },
    });
    expect((await fetch(`${server.url}/v1/sys/health`)).status).toBe(503);
    expect((await fetch(`${server.url}/v1/sys/health`)).status).toBe(200);
    const listed = await (await fetch(`${server.url}/_sim/faults`)).json();
    expect(listed).toMatchObject({ faults: [{ id: "fault-1", seen: 2, applied: 1, exhausted: true }] });
    const journal = await (await fetch(`${server.url}/_sim/journal`)).json();
    expect(journal.entries.map((e: { status: number; fault?: string }) => [e.status, e.fault])).toEqual([
      [503, "fault-1"],
      [200, undefined],
    ]);
    expect(d.handler.journal.map((e) => e.fault)).toEqual(["fault-1", undefined]);
    expect((await fetch(`${server.url}/_sim/faults/fault-1`, { method: "DELETE" })).status).toBe(204);
    const missing = await fetch(`${server.url}/_sim/faults/fault-1`, { method: "DELETE" });
    expect(missing.status).toBe(404);
    expect(await missing.json()).toEqual({ error: { status: 404, code: "not_found", message: '_sim: cannot remove fault: no fault "fault-1" (GET /_sim/faults lists them)' } });
  });

  it("DELETE /_sim/faults clears every fault", async () => {
    const { server } = await serve();
    await jsonPost(`${server.url}/_sim/faults`, { service: "runs", answer: "unavailable" });
    await jsonPost(`${server.url}/_sim/faults`, { service: "accessControl", answer: "no-cluster-leader" });
    expect((await (await fetch(`${server.url}/_sim/faults`)).json()).faults).toHaveLength(2);
    expect((await fetch(`${server.url}/_sim/faults`, { method: "DELETE" })).status).toBe(204);
    expect(await (await fetch(`${server.url}/_sim/faults`)).json()).toEqual({ faults: [] });
    expect((await fetch(`${server.url}/v1/acl/token/self`)).status).toBe(403);
  });

  it("refuses a bad definition with the control API's 400, naming the field", async () => {
    const { server } = await serve();
    const bad = await jsonPost(`${server.url}/_sim/faults`, { service: "runs", answer: "rate-limited", probability: 1.5 });
    expect(bad.status).toBe(400);
    expect(await bad.json()).toEqual({ error: { status: 400, code: "invalid", message: '_sim: cannot add fault: "probability" must be a number from 0 to 1; got 1.5' } });
    const malformed = await jsonPost(`${server.url}/_sim/faults`, "{");
    expect(malformed.status).toBe(400);
    expect((await malformed.json()).error.code).toBe("malformed");
    expect(await (await fetch(`${server.url}/_sim/faults`)).json()).toEqual({ faults: [] });
  });

  it("keeps the control API's protections: JSON content type, Host check, control token", async () => {
    const { server } = await serve({ controlToken: "s3cret" });
    const body = JSON.stringify({ service: "runs", answer: "unavailable" });
    const token = { "x-infra-doubles-control-token": "s3cret" };
    expect((await fetch(`${server.url}/_sim/faults`, { method: "POST", body, headers: { "content-type": "application/json" } })).status).toBe(401);
    expect((await fetch(`${server.url}/_sim/faults`, { method: "POST", body, headers: { ...token, "content-type": "text/plain" } })).status).toBe(415);
    expect((await fetch(`${server.url}/_sim/faults`, { method: "POST", body, headers: { ...token, "content-type": "application/json", origin: "https://evil.example" } })).status).toBe(403);
    expect((await fetch(`${server.url}/_sim/faults`, { method: "DELETE" })).status).toBe(401);
    expect((await fetch(`${server.url}/_sim/faults`, { method: "POST", body, headers: { ...token, "content-type": "application/json" } })).status).toBe(201);
  });

  it("POST /_sim/reset clears the faults with the rest", async () => {
    const { server } = await serve();
    await jsonPost(`${server.url}/_sim/faults`, { service: "runs", answer: "unavailable" });
    await jsonPost(`${server.url}/_sim/reset`, {});
    expect(await (await fetch(`${server.url}/_sim/faults`)).json()).toEqual({ faults: [] });
  });
});
