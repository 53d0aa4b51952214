/**
 * No response header ever carries a value Node cannot send (issue 8, defect 1): a value built from
 * client input (a mount path with an emoji, CR/LF) is percent-encoded at the handler's response
 * finalisation, so every transport sends it and a client reads it back with `decodeURIComponent`.
 */
import { expect, it } from "vitest";
import { createHandler, NEAREST_HEADER } from "../../src/interceptors/handler.js";
import { encodeHeaderValue } from "../../src/interceptors/header-values.js";
import { createDoubles } from "../../src/scenarios/doubles.js";
import { describeEachTransport } from "../support/transports.js";
import { nodeRequest } from "./node-client.js";

const nodeGet = (url: string, headers: Record<string, string> = {}) => nodeRequest("GET", url, headers);

describeEachTransport("response header values built from client input", (t) => {
  const start = async () => {
    const started = await t.startWith(createDoubles({ seed: 1 }));
    const token = started.doubles.secrets.rootToken;
    return { ...started, token };
  };

  it("percent-encodes a mount path outside Latin-1 in the nearest-endpoints header (fetch and node:http)", async () => {
    const { base, token } = await start();
    const mounted = await fetch(`${base("secrets")}/sys/mounts/x%F0%9F%92%A5`, {
      method: "POST",
      headers: { "x-secrets-token": token, "content-type": "application/json" },
      body: JSON.stringify({ type: "ssh" }),
    });
    expect(mounted.status).toBe(204);
    const miss = await fetch(`${base("secrets")}/x%F0%9F%92%A5/rolez`, { headers: { "x-secrets-token": token } });
    expect(miss.status).toBe(404);
    const nearest = miss.headers.get(NEAREST_HEADER) ?? "";
    expect(nearest).toContain("/v1/x%F0%9F%92%A5/");
    expect(decodeURIComponent(nearest)).toContain("/v1/x💥/");
    const viaNode = await nodeGet(`${base("secrets")}/x%F0%9F%92%A5/rolez`, { "x-secrets-token": token });
    expect(viaNode.status).toBe(404);
    expect(viaNode.headers[NEAREST_HEADER]).toBe(nearest);
    const head = await fetch(`${base("secrets")}/nothing-here`, { method: "HEAD" });
    expect(head.status).toBeGreaterThanOrEqual(400);
  });

  it("keeps CR/LF from client input out of the header block", async () => {
    const { base, token } = await start();
    const mounted = await fetch(`${base("secrets")}/sys/mounts/evil%0D%0Aset-cookie:%20a=b`, {
      method: "POST",
      headers: { "x-secrets-token": token, "content-type": "application/json" },
      body: JSON.stringify({ type: "ssh" }),
    });
    expect(mounted.status).toBe(204);
    const miss = await nodeGet(`${base("secrets")}/evil%0D%0Aset-cookie:%20a=b/rolez`, { "x-secrets-token": token });
    expect(miss.status).toBe(404);
    expect(miss.headers["set-cookie"]).toBeUndefined();
    expect(miss.headers[NEAREST_HEADER]).toContain("/v1/evil%0D%0Aset-cookie: a=b/");
  });
});

it("encodes every character outside printable ASCII as UTF-8 percent-escapes, and nothing else", () => {
  expect(encodeHeaderValue("GET /v1/ssh/roles/:name")).toBe("GET /v1/ssh/roles/:name");
  expect(encodeHeaderValue("x💥")).toBe("x%F0%9F%92%A5");
  expect(encodeHeaderValue("a\r\nb\tc\u007f")).toBe("a%0D%0Ab%09c%7F");
  expect(encodeHeaderValue("é")).toBe("%C3%A9");
  expect(decodeURIComponent(encodeHeaderValue("x💥 \r\n é"))).toBe("x💥 \r\n é");
});

it("finalises every answer of the transport-free handler, whatever the service put in a header", async () => {
  const sim = createDoubles({ seed: 1 }).sim;
  const handler = createHandler({
    sim,
    mounts: [
      {
        bases: { api: "https://odd.test/api" },
        service: {
          name: "odd",
          routes: [
            { method: "GET", path: "/x", handler: () => ({ status: 200, headers: { "x-echo": "ü\n💥" }, body: "" }) },
            { method: "GET", path: "/long", handler: () => ({ status: 200, headers: { "x-echo": "y".repeat(100_000) }, body: "" }) },
          ],
          errorResponse: () => ({ status: 500, headers: {} }),
          noRoute: () => ({ status: 404, headers: {} }),
        },
      },
    ],
  });
  const response = await handler.handle({ method: "GET", url: new URL("https://odd.test/api/x"), headers: {}, body: new Uint8Array() });
  expect(response.headers["x-echo"]).toBe("%C3%BC%0A%F0%9F%92%A5");
  const long = await handler.handle({ method: "GET", url: new URL("https://odd.test/api/long"), headers: {}, body: new Uint8Array() });
  expect(long.headers["x-echo"]).toBe(`${"y".repeat(4093)}...`);
});
