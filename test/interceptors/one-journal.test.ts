/**
 * One journal per doubles, whatever the transport: `doubles.handler.journal`, and `GET /_sim/journal`
 * on the server, list the same requests, whether they came through nock, the server, or both.
 */
import { expect, it } from "vitest";
import { DoublesCore } from "../../src/scenarios/doubles-core.js";
import { demoPlugin } from "../support/demo-service.js";
import { describeEachTransport } from "../support/transports.js";

describeEachTransport("one journal per doubles", (h) => {
  it("doubles.handler.journal lists the requests this transport carried", async () => {
    const { doubles, base } = await h.start([demoPlugin], { seed: 1 });
    const created = await fetch(`${base("demo")}/things`, { method: "POST", headers: { "content-type": "application/json" }, body: '{"name":"a"}' });
    expect(created.status).toBe(201);
    expect((await fetch(`${base("demo")}/nowhere`)).status).toBe(404);
    expect(doubles.handler.journal.map((e) => [e.method, new URL(e.url).pathname, e.status])).toEqual([
      ["POST", new URL(`${base("demo")}/things`).pathname, 201],
      ["GET", new URL(`${base("demo")}/nowhere`).pathname, 404],
    ]);
    doubles.handler.clearJournal();
    expect(doubles.handler.journal).toEqual([]);
  });
});

it("requests through nock and through the server land in one journal, in order, also seen by GET /_sim/journal", async () => {
  const doubles = new DoublesCore([demoPlugin], { seed: 1 });
  try {
    const server = await doubles.listen();
    doubles.intercept();
    const nockBase = doubles.baseUrls().demo?.api ?? "";
    await fetch(`${nockBase}/things/one`);
    await fetch(`${server.url}/demo/api/things/two`);
    await fetch(`${nockBase}/things/three`);
    const expected = [`${nockBase}/things/one`, `${server.url}/demo/api/things/two`, `${nockBase}/things/three`];
    expect(doubles.handler.journal.map((e) => e.url)).toEqual(expected);
    const overHttp = (await (await fetch(`${server.url}/_sim/journal`)).json()) as { entries: { url: string }[] };
    expect(overHttp.entries.map((e) => e.url)).toEqual(expected);
    expect((await fetch(`${server.url}/_sim/journal`, { method: "DELETE" })).status).toBe(204);
    expect(doubles.handler.journal).toEqual([]);
  } finally {
    await doubles.close();
  }
});
