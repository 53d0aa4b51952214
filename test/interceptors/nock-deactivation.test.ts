/**
 * Nothing the library activated stays active (issue 8, defect 9): when the last interception
 * stops, nock's interception is restored if this library activated it, so `fetch`,
 * `http.request` and `http.ClientRequest` are node's own again. (With nock left active, each
 * createDoubles/intercept/close cycle kept about 17 KB while node:http talked keep-alive to a local
 * server.) This file must not import nock itself: it plays a user who never loads it, then one who
 * turns it on later. test/interceptors/nock-user-active.test.ts plays a user who imports it first.
 */
import http from "node:http";
import https from "node:https";
import { createRequire } from "node:module";
import { describe, expect, it } from "vitest";
import { ownedOriginGuardInstalled } from "../../src/interceptors/owned-origins.js";
import { createDoubles } from "../../src/scenarios/doubles.js";

const require = createRequire(import.meta.url);

const globals = () => ({
  fetch: globalThis.fetch,
  httpRequest: http.request,
  httpGet: http.get,
  httpsRequest: https.request,
  httpsGet: https.get,
  clientRequest: http.ClientRequest,
});

async function cycle(n: number): Promise<void> {
  for (let i = 0; i < n; i++) {
    const doubles = createDoubles({ seed: i });
    doubles.intercept();
    const response = await fetch(`${doubles.baseUrls().secrets.api}/sys/health`);
    expect(response.status).toBe(200);
    await doubles.close();
  }
}

describe("nock's interception, activated by the library", () => {
  it("is restored after the last interception stops: fetch, http.request, http.ClientRequest are node's own again", async () => {
    const before = globals();
    await cycle(20);
    const nock = require("nock") as typeof import("nock");
    expect(nock.isActive()).toBe(false);
    expect(globals()).toEqual(before);
    expect(ownedOriginGuardInstalled()).toBe(false);
  });

  it("stays while another interception of the same process is live", async () => {
    const before = globals();
    const first = createDoubles({ seed: 1 });
    first.intercept();
    const second = createDoubles({
      seed: 2,
      baseUrls: {
        runs: { api: "https://other-runs.test/api/v2", archive: "https://other-archive.test" },
        accessControl: "https://other-access.test/v1",
        secrets: "https://other-secrets.test/v1",
      },
    });
    second.intercept();
    await first.close();
    const nock = require("nock") as typeof import("nock");
    expect(nock.isActive()).toBe(true);
    expect((await fetch("https://other-secrets.test/v1/sys/health")).status).toBe(200);
    await second.close();
    expect(nock.isActive()).toBe(false);
    expect(globals()).toEqual(before);
  });

  it("is left active when the user activated nock again before intercepting, and their own mocks keep working", async () => {
    const nock = require("nock") as typeof import("nock");
    nock.activate();
    try {
      const active = globals();
      nock("https://user.example").persist().get("/ping").reply(200, "pong");
      await cycle(3);
      expect(nock.isActive()).toBe(true);
      expect(globals()).toEqual(active);
      expect(await (await fetch("https://user.example/ping")).text()).toBe("pong");
    } finally {
      nock.cleanAll();
      nock.restore();
    }
  });
});
