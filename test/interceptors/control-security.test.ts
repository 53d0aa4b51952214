/**
 * Issue 8 defect 10: the `/_sim/` control API answers only its own server's names, refuses
 * cross-site requests and non-JSON writes, needs a control token when one is set (always when bound
 * beyond loopback), and masks credentials in the journal; service routes are unaffected. Through
 * the server with exact headers (node:http lets a test send any `Host`).
 */
import { request } from "node:http";
import { afterEach, describe, expect, it } from "vitest";
import type { RunningServer } from "../../src/interceptors/server.js";
import { DoublesCore, type ListenOptions } from "../../src/scenarios/doubles-core.js";
import { demoPlugin } from "../support/demo-service.js";
import { describeEachTransport } from "../support/transports.js";
import { demoWithControls } from "./demo-with-controls.js";

const TOKEN_HEADER = "x-infra-doubles-control-token";

interface Answer {
  readonly status: number;
  readonly body: string;
  json(): Record<string, unknown>;
}

/** One request with exactly these headers (node:http sends `Host` only as given here). */
function send(url: string, method: string, headers: Record<string, string>, body?: string): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = request(url, { method, headers, setHost: headers.host === undefined }, (res) => {
      const chunks: Buffer[] = [];
      res.on("data", (chunk: Buffer) => chunks.push(chunk));
      res.on("end", () => {
        const text = Buffer.concat(chunks).toString("utf8");
        resolve({ status: res.statusCode ?? 0, body: text, json: () => JSON.parse(text) as Record<string, unknown> });
      });
    });
    req.on("error", reject);
    req.end(body);
  });
}

const servers: RunningServer[] = [];
afterEach(async () => {
  for (const server of servers.splice(0)) await server.close();
});

async function start(options: ListenOptions = {}) {
  const doubles = new DoublesCore([demoWithControls], { seed: 9 });
  const server = await doubles.listen(options);
  servers.push(server);
  const port = new URL(server.url).port;
  return { doubles, server, port, sim: `${server.url}/_sim` };
}

const JSON_TYPE = { "content-type": "application/json" };

describe("/_sim/ answers only when Host names the server", () => {
  it("answers localhost, 127.0.0.1 and [::1] with the server's port", async () => {
    const { sim, port } = await start();
    for (const host of [`localhost:${port}`, `127.0.0.1:${port}`, `[::1]:${port}`, `LOCALHOST:${port}`]) {
      expect((await send(`${sim}/clock`, "GET", { host })).status, host).toBe(200);
    }
  });

  it("refuses other names (DNS rebinding), another port, and no Host at all, with 403 and a JSON error", async () => {
    const { sim, port } = await start();
    for (const host of ["evil.example", `evil.example:${port}`, `localhost:${Number(port) + 1}`, "localhost", `127.0.0.1.evil.example:${port}`]) {
      const answer = await send(`${sim}/clock`, "GET", { host });
      expect(answer.status, host).toBe(403);
      expect(answer.json(), host).toMatchObject({ error: { status: 403, code: "forbidden", message: expect.stringMatching(/Host/) } });
    }
    const reset = await send(`${sim}/reset`, "POST", { host: "evil.example", ...JSON_TYPE }, "{}");
    expect(reset.status).toBe(403);
  });

  it("answers names added with allowedHosts (name: any port; name:port: that port)", async () => {
    const { sim, port } = await start({ allowedHosts: ["dev.internal", "proxy.internal:8443"] });
    expect((await send(`${sim}/clock`, "GET", { host: `dev.internal:${port}` })).status).toBe(200);
    expect((await send(`${sim}/clock`, "GET", { host: "dev.internal:9999" })).status).toBe(200);
    expect((await send(`${sim}/clock`, "GET", { host: "proxy.internal:8443" })).status).toBe(200);
    expect((await send(`${sim}/clock`, "GET", { host: `proxy.internal:${port}` })).status).toBe(403);
  });

  it("leaves the service routes alone: any Host, Origin or Sec-Fetch-Site reaches them", async () => {
    const { server } = await start();
    const answer = await send(`${server.url}/demo/api/things`, "POST", { host: "secrets.corp.example", origin: "https://evil.example", "sec-fetch-site": "cross-site", "content-type": "text/plain" }, '{"name":"x"}');
    expect(answer.status).toBe(201);
  });
});

describe("/_sim/ refuses cross-site requests", () => {
  it("refuses an Origin that names another host, or null, with 403; accepts its own origin", async () => {
    const { sim, server, port } = await start();
    for (const origin of ["https://evil.example", `http://evil.example:${port}`, "null", `http://localhost:${Number(port) + 1}`]) {
      const answer = await send(`${sim}/clock/advance`, "POST", { origin, ...JSON_TYPE }, '{"by":"1h"}');
      expect(answer.status, origin).toBe(403);
      expect(answer.json(), origin).toMatchObject({ error: { code: "forbidden", message: expect.stringMatching(/cross-site/) } });
    }
    expect((await send(`${sim}/clock`, "GET", {})).json()).toMatchObject({ now: "2024-01-01T00:00:00.000Z" });
    expect((await send(`${sim}/clock`, "GET", { origin: server.url })).status).toBe(200);
    expect((await send(`${sim}/clock`, "GET", { origin: `http://localhost:${port}` })).status).toBe(200);
  });

  it("refuses Sec-Fetch-Site: cross-site with 403; same-origin and none pass", async () => {
    const { sim } = await start();
    expect((await send(`${sim}/reset`, "POST", { "sec-fetch-site": "cross-site", ...JSON_TYPE }, "{}")).status).toBe(403);
    expect((await send(`${sim}/clock`, "GET", { "sec-fetch-site": "cross-site" })).status).toBe(403);
    expect((await send(`${sim}/clock`, "GET", { "sec-fetch-site": "same-origin" })).status).toBe(200);
    expect((await send(`${sim}/clock`, "GET", { "sec-fetch-site": "none" })).status).toBe(200);
  });
});

describe("/_sim/ writes need a JSON content type", () => {
  it("refuses text/plain, form and missing content types on POST with 415, and changes nothing", async () => {
    const { sim, doubles } = await start();
    for (const type of ["text/plain", "text/plain;charset=UTF-8", "application/x-www-form-urlencoded", "multipart/form-data; boundary=x", undefined]) {
      const answer = await send(`${sim}/clock/advance`, "POST", type === undefined ? {} : { "content-type": type }, '{"by":"1h"}');
      expect(answer.status, String(type)).toBe(415);
      expect(answer.json()).toMatchObject({ error: { status: 415, code: "unsupported_media_type" } });
    }
    expect(doubles.now()).toBe(Date.UTC(2024, 0, 1));
    expect((await send(`${sim}/clock/advance`, "POST", { "content-type": "application/json; charset=utf-8" }, '{"by":"1h"}')).status).toBe(200);
    expect((await send(`${sim}/demo/things/made`, "POST", JSON_TYPE)).status).toBe(201);
  });
});

describe("/_sim/ control token", () => {
  it("requires the token in X-Infra-Doubles-Control-Token when one is set, 401 without or with a wrong one", async () => {
    const { sim } = await start({ controlToken: "s3cret-token" });
    expect((await send(`${sim}/clock`, "GET", {})).status).toBe(401);
    expect((await send(`${sim}/clock`, "GET", { [TOKEN_HEADER]: "wrong" })).json()).toMatchObject({ error: { status: 401, code: "unauthenticated" } });
    expect((await send(`${sim}/clock`, "GET", { [TOKEN_HEADER]: "s3cret-token" })).status).toBe(200);
    expect((await send(`${sim}/reset`, "POST", { [TOKEN_HEADER]: "s3cret-token", ...JSON_TYPE }, "{}")).status).toBe(200);
  });

  it("generates an unpredictable token when bound beyond loopback, and needs it", async () => {
    const first = await start({ host: "0.0.0.0" });
    const second = await start({ host: "0.0.0.0" });
    expect(first.server.controlToken).toMatch(/^[A-Za-z0-9_-]{32}$/);
    expect(second.server.controlToken).not.toBe(first.server.controlToken);
    const sim = `http://127.0.0.1:${first.port}/_sim`;
    expect((await send(`${sim}/clock`, "GET", {})).status).toBe(401);
    expect((await send(`${sim}/clock`, "GET", { [TOKEN_HEADER]: first.server.controlToken ?? "" })).status).toBe(200);
  });

  it("needs no token on loopback unless one is given", async () => {
    const { server } = await start();
    expect(server.controlToken).toBeUndefined();
  });
});

describe("the journal masks credentials", () => {
  it("masks token query parameters and credential headers unless ?reveal=true", async () => {
    const { server, sim } = await start();
    await send(`${server.url}/demo/api/things/x?token=s.query-secret&page=2&client_token=ct`, "GET", {
      "x-vault-token": "s.vault-secret",
      "x-consul-token": "consul-secret",
      authorization: "Bearer bearer-secret",
      accept: "application/json",
    });
    const masked = (await send(`${sim}/journal`, "GET", {})).body;
    for (const secret of ["s.query-secret", "s.vault-secret", "consul-secret", "bearer-secret", "=ct"]) expect(masked).not.toContain(secret);
    const entry = ((JSON.parse(masked) as { entries: { url: string; headers: Record<string, string> }[] }).entries)[0];
    expect(entry?.url).toBe(`${server.url}/demo/api/things/x?token=***&page=2&client_token=***`);
    expect(entry?.headers).toMatchObject({ "x-vault-token": "***", "x-consul-token": "***", authorization: "***", accept: "application/json" });
    const revealed = (await send(`${sim}/journal?reveal=true`, "GET", {})).body;
    for (const secret of ["s.query-secret", "s.vault-secret", "consul-secret", "bearer-secret"]) expect(revealed).toContain(secret);
    expect((await send(`${sim}/journal?reveal=true`, "GET", { host: "evil.example" })).status).toBe(403);
  });
});

describeEachTransport("the control API and the transports", (t) => {
  it(t.name === "server" ? "serves /_sim/ on the server's own origin" : "keeps /_sim/ off the in-process transport (a service's own 404)", async () => {
    const { base } = await t.start([demoPlugin], { seed: 1 });
    const origin = new URL(base("demo")).origin;
    const answer = await fetch(`${origin}/_sim/clock`);
    const text = await answer.text();
    if (t.name === "server") {
      expect(answer.status).toBe(200);
      expect(text).toMatch(/"epochMs"/);
    } else {
      expect(answer.status).toBe(404);
      expect(text).not.toMatch(/epochMs/);
    }
  });

  it("answers the service routes whatever Host, Origin and Sec-Fetch-Site say", async () => {
    const { base } = await t.start([demoPlugin], { seed: 1 });
    const answer = await fetch(`${base("demo")}/things`, {
      method: "POST",
      headers: { origin: "https://evil.example", "sec-fetch-site": "cross-site", "content-type": "text/plain" },
      body: '{"name":"x"}',
    });
    expect(answer.status).toBe(201);
  });
});
