/** `mswHandlers(doubles)`: msw 2 handlers over the same handle() (issue 9 item 4, first step). */
import http from "node:http";
import https from "node:https";
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { http as mswHttp, HttpResponse } from "msw";
import { setupServer } from "msw/node";
import { expect, it } from "vitest";
import { clientMethodSupportInstalled } from "../../src/interceptors/client-methods.js";
import { ownedOriginGuardInstalled } from "../../src/interceptors/owned-origins.js";
import { mswHandlers } from "../../src/interceptors/transports/msw.js";
import { createDoubles } from "../../src/scenarios/doubles.js";

it("answers fetch and node:http LIST from the doubles through msw's setupServer", async () => {
  const doubles = createDoubles({ seed: 2 });
  const server = setupServer(...mswHandlers(doubles));
  server.listen({ onUnhandledRequest: "error" });
  try {
    const base = doubles.baseUrls().secrets.api;
    const headers = { "x-secrets-token": doubles.secrets.rootToken };
    expect((await fetch(`${base}/sys/health`)).status).toBe(200);
    const created = await fetch(`${base}/ssh/roles/web`, { method: "POST", headers: { ...headers, "content-type": "application/json" }, body: '{"key_type":"ca","allow_user_certificates":true}' });
    expect(created.status).toBe(204);
    const malformed = await fetch(`${base}/ssh/roles/web`, { method: "POST", headers: { ...headers, "content-type": "application/json" }, body: '{"key_type":' });
    expect(malformed.status).toBe(400);
    const listed = await new Promise<string>((resolve, reject) => {
      const req = (base.startsWith("https:") ? https : http).request(`${base}/ssh/roles`, { method: "LIST", headers }, (res) => {
        let text = "";
        res.on("data", (c: Buffer) => (text += c.toString()));
        res.on("end", () => resolve(text));
      });
      req.setTimeout(5000, () => req.destroy(new Error("hung")));
      req.on("error", reject);
      req.end();
    });
    expect(JSON.parse(listed)).toMatchObject({ data: { keys: ["web"] } });
    expect(doubles.handler.journal.map((e) => e.method)).toContain("POST");
  } finally {
    server.close();
    await doubles.close();
  }
});

it("stops answering after doubles.close(): msw moves on to the next handler, and LIST support and the owned-origin guard are released", async () => {
  const doubles = createDoubles({ seed: 2 });
  const base = doubles.baseUrls().secrets.api;
  const server = setupServer(...mswHandlers(doubles), mswHttp.all(`${base}/*`, () => HttpResponse.text("next handler", { status: 418 })));
  server.listen({ onUnhandledRequest: "error" });
  try {
    expect((await fetch(`${base}/sys/health`)).status).toBe(200);
    expect([clientMethodSupportInstalled(), ownedOriginGuardInstalled()]).toEqual([true, true]);
    await doubles.close();
    expect([clientMethodSupportInstalled(), ownedOriginGuardInstalled()]).toEqual([false, false]);
    const after = await fetch(`${base}/sys/health`);
    expect([after.status, await after.text()]).toEqual([418, "next handler"]);
  } finally {
    server.close();
  }
});

it("only the infra-doubles/msw entry reaches msw: no other source module imports it or the handlers", () => {
  const root = join(import.meta.dirname, "../../src");
  const files = readdirSync(root, { recursive: true, encoding: "utf8" }).filter((f) => f.endsWith(".ts"));
  const importers = (pattern: RegExp) => files.filter((f) => pattern.test(readFileSync(join(root, f), "utf8"))).map((f) => f.replaceAll("\\", "/")).sort();
  expect(importers(/from "msw(?:\/[^"]*)?"/)).toEqual(["interceptors/transports/msw.ts"]);
  expect(importers(/from "\.\/transports\/msw\.js"|from "\.\.?\/.*transports\/msw\.js"/)).toEqual(["interceptors/msw-entry.ts"]);
});
