/**
 * `LIST` and every other HTTP token method from the node:http-based clients a test runs in its own
 * process (axios, got, `http.request`, `https.request`), on every transport. Before the fix,
 * @mswjs/interceptors' ClientRequest interceptor (under nock) never emitted such a request: its
 * request parser refuses methods it does not know, so `LIST` hung; and nock answered methods it was
 * not told about (`TRACE`, `TRACK`, `PROPFIND`, `M-SEARCH`, `FROB`) with "Nock: No match". Each now gets the
 * service's own answer, as on the server.
 */
import http from "node:http";
import { createRequire } from "node:module";
import https from "node:https";
import axios from "axios";
import got from "got";
import { describe, expect, it } from "vitest";
import { createDoubles } from "../../src/scenarios/doubles.js";
import { describeEachTransport } from "../support/transports.js";

interface Answer {
  status: number;
  body: string;
  headers: http.IncomingHttpHeaders;
}

/** One request through node:http (or node:https for an https URL), with a 5 s cap on waiting. */
function nodeRequest(url: string, method: string, headers: Record<string, string> = {}, body?: string): Promise<Answer> {
  return new Promise<Answer>((resolve, reject) => {
    const client = url.startsWith("https:") ? https : http;
    const req = client.request(url, { method, headers }, (res) => {
      let text = "";
      res.on("data", (chunk: Buffer) => (text += chunk.toString()));
      res.on("end", () => resolve({ status: res.statusCode ?? 0, body: text, headers: res.headers }));
    });
    req.setTimeout(5_000, () => req.destroy(new Error(`${method} ${url} hung`)));
    req.on("error", reject);
    req.end(body);
  });
}

describeEachTransport("any HTTP token method from node:http clients", (t) => {
  const start = async () => {
    const started = await t.startWith(createDoubles({ seed: 4 }));
    const secrets = started.base("secrets");
    const root = started.doubles.secrets.rootToken;
    const headers = { "x-secrets-token": root };
    for (const name of ["web", "db"]) {
      const created = await fetch(`${secrets}/ssh/roles/${name}`, {
        method: "POST",
        headers: { ...headers, "content-type": "application/json" },
        body: JSON.stringify({ key_type: "ca", allow_user_certificates: true }),
      });
      expect(created.status).toBe(204);
    }
    return { ...started, secrets, headers };
  };
  const listed = { data: { keys: ["db", "web"] } };

  it("answers LIST from http.request / https.request", async () => {
    const { secrets, headers } = await start();
    const answer = await nodeRequest(`${secrets}/ssh/roles`, "LIST", headers);
    expect(answer.status).toBe(200);
    expect(JSON.parse(answer.body)).toMatchObject(listed);
    const withBody = await nodeRequest(`${secrets}/ssh/roles`, "LIST", { ...headers, "content-type": "application/json" }, "{}");
    expect(JSON.parse(withBody.body)).toMatchObject(listed);
  });

  it("answers LIST from axios", async () => {
    const { secrets, headers } = await start();
    const answer = await axios.request({ url: `${secrets}/ssh/roles`, method: "LIST", headers, timeout: 5_000 });
    expect(answer.status).toBe(200);
    expect(answer.data).toMatchObject(listed);
  });

  it("answers LIST from got", async () => {
    const { secrets, headers } = await start();
    // got's types name only the usual methods; it sends any method it is given.
    const answer = await got(`${secrets}/ssh/roles`, { method: "LIST" as "GET", headers, timeout: { request: 5_000 }, retry: { limit: 0 } }).json();
    expect(answer).toMatchObject(listed);
  });

  it("answers methods no route uses with the service's own 405 or 404, never a hang or a transport error", async () => {
    const { secrets, headers, base } = await start();
    const runs = base("runs");
    for (const method of ["TRACE", "TRACK", "PROPFIND", "M-SEARCH", "FROB", "LIST"]) {
      const onPath = await nodeRequest(`${secrets}/sys/health`, method, headers);
      expect([404, 405], `${method} /sys/health: ${onPath.status} ${onPath.body}`).toContain(onPath.status);
      expect(onPath.body).not.toMatch(/Nock|infra-doubles: internal error/);
      const onRuns = await nodeRequest(`${runs}/runs/run-x`, method);
      expect([404, 405], `${method} runs: ${onRuns.status} ${onRuns.body}`).toContain(onRuns.status);
    }
    const fromFetch = await fetch(`${secrets}/sys/health`, { method: "FROB", headers });
    expect([404, 405]).toContain(fromFetch.status);
    // The answers are the same through fetch and node:http.
    const fromHttp = await nodeRequest(`${secrets}/sys/health`, "FROB", headers);
    expect(fromHttp.status).toBe(fromFetch.status);
    expect(fromHttp.body).toBe(await fromFetch.text());
  });
});

describe("server mode with nock loaded and active in the same process", () => {
  it("answers got, axios and http.request LIST through nock's interceptor", async () => {
    const { default: nock } = await import("nock");
    const activatedHere = !nock.isActive();
    if (activatedHere) nock.activate(); // an earlier interception in this file may have restored it
    const elsewhere = nock("https://unrelated.test").get("/x").reply(200, "nock answer").persist();
    const doubles = createDoubles({ seed: 4 });
    const server = await doubles.listen();
    try {
      const headers = { "x-secrets-token": doubles.secrets.rootToken };
      expect((await fetch("https://unrelated.test/x")).status).toBe(200);
      const viaGot = await got(`${server.url}/v1/ssh/roles`, { method: "LIST" as "GET", headers, timeout: { request: 5_000 }, retry: { limit: 0 }, throwHttpErrors: false });
      expect(viaGot.statusCode).toBe(404); // no roles yet: the secrets service's empty-list answer
      expect(JSON.parse(viaGot.body)).toEqual({ errors: [] });
      const viaAxios = await axios.request({ url: `${server.url}/v1/ssh/roles`, method: "LIST", headers, timeout: 5_000, validateStatus: () => true });
      expect(viaAxios.status).toBe(404);
      const viaHttp = await nodeRequest(`${server.url}/v1/ssh/roles`, "LIST", headers);
      expect(viaHttp.status).toBe(404);
    } finally {
      elsewhere.persist(false);
      nock.cleanAll();
      if (activatedHere) nock.restore();
      await doubles.close();
    }
  });
});

describe("what the method support leaves behind", () => {
  it("is installed while a transport is live and removed after the last one stops", async () => {
    const { clientMethodSupportInstalled } = await import("../../src/interceptors/client-methods.js");
    const { ClientRequest } = createRequire(import.meta.url)("node:_http_client") as { ClientRequest: { prototype: object } };
    const onSocket = Object.getOwnPropertyDescriptor(ClientRequest.prototype, "onSocket");
    const doubles = createDoubles({ seed: 1 });
    const interception = doubles.intercept();
    const server = await doubles.listen();
    expect(clientMethodSupportInstalled()).toBe(true);
    interception.stop();
    expect(clientMethodSupportInstalled()).toBe(true);
    await server.close();
    await server.close();
    interception.stop();
    expect(clientMethodSupportInstalled()).toBe(false);
    expect(Object.getOwnPropertyDescriptor(ClientRequest.prototype, "onSocket")).toEqual(onSocket);
    await doubles.close();
  });

  it("puts node:http back whatever order the guards on ClientRequest are released in", async () => {
    const { holdClientMethodSupport } = await import("../../src/interceptors/client-methods.js");
    const { holdOwnedOrigins, ownedOriginGuardInstalled } = await import("../../src/interceptors/owned-origins.js");
    const { socketHooksInstalled } = await import("../../src/interceptors/client-request-hooks.js");
    const { ClientRequest } = createRequire(import.meta.url)("node:_http_client") as { ClientRequest: { prototype: object } };
    const onSocket = Object.getOwnPropertyDescriptor(ClientRequest.prototype, "onSocket");
    const releaseOrigins = holdOwnedOrigins(["https://a.test"]);
    const releaseMethods = holdClientMethodSupport();
    releaseOrigins();
    expect(ownedOriginGuardInstalled()).toBe(false);
    releaseMethods();
    expect(socketHooksInstalled()).toBe(false);
    expect(Object.getOwnPropertyDescriptor(ClientRequest.prototype, "onSocket")).toEqual(onSocket);
  });
});
