/**
 * nock 15 (installed here as the npm alias `nock15`; `npm install nock` gives it to a new user):
 * its CommonJS export is `{ default: nock }` (an ES module loaded with require), and before the
 * fix every `intercept()` threw `TypeError: instance.isActive is not a function`. On Node 20 its
 * @mswjs/interceptors 0.44 also calls `Promise.withResolvers`, which Node 20 lacks.
 *
 * This file loads nock 15 for the whole file (the transports' seam, before anything loads nock),
 * checks the basics on fetch and node:http, then runs contract files through the nock transport
 * alone (the other transports do not use nock). CI runs the whole contract suite through nock 15
 * too (`INFRA_DOUBLES_TEST_NOCK=nock15`, .ci/run), less the known gaps in .ci/nock15-known-gaps.txt.
 */
import http from "node:http";
import https from "node:https";
import { createRequire } from "node:module";
import { afterEach, describe, expect, it } from "vitest";
import { nockExport, useNockModule } from "../../src/interceptors/transports/nock-module.js";
import { createDoubles, type Doubles } from "../../src/scenarios/doubles.js";

useNockModule("nock15");
process.env.INFRA_DOUBLES_TEST_TRANSPORTS = "nock";

const require = createRequire(import.meta.url);
const nock15 = (require("nock15") as { default: typeof import("nock") }).default;

function nodeGet(url: string, headers: Record<string, string>): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const client = url.startsWith("https:") ? https : http;
    const req = client.get(url, { headers }, (res) => {
      let text = "";
      res.on("data", (chunk: Buffer) => (text += chunk.toString()));
      res.on("end", () => resolve({ status: res.statusCode ?? 0, body: text }));
    });
    req.setTimeout(5_000, () => req.destroy(new Error(`GET ${url} hung`)));
    req.on("error", reject);
  });
}

describe("nock 15", () => {
  let doubles: Doubles | undefined;
  afterEach(async () => {
    await doubles?.close();
    doubles = undefined;
  });

  it("is what the loaded module holds, as its export or its default export", () => {
    expect(nock15.isActive).toBeTypeOf("function");
    expect(nockExport({ default: nock15 })).toBe(nock15);
    expect(nockExport(nock15)).toBe(nock15);
    expect(() => nockExport({ default: {} })).toThrow(/not nock 14 or 15/);
  });

  it("intercepts fetch and node:http through the nock transport", async () => {
    doubles = createDoubles({ seed: 1 });
    const interception = doubles.intercept();
    const secrets = doubles.baseUrls().secrets?.api ?? "";
    const headers = { "x-secrets-token": doubles.secrets.rootToken };
    const answer = await fetch(`${secrets}/sys/health`, { headers });
    expect(answer.status).toBe(200);
    expect(await answer.json()).toMatchObject({ initialized: true, sealed: false });
    const node = await nodeGet(`${secrets}/sys/health`, headers);
    expect(node.status).toBe(200);
    expect(JSON.parse(node.body)).toMatchObject({ initialized: true });
    // Requests to the doubles' own origins are never unhandled (nock 15 answers them below the
    // engine's fetch layer, where the unhandled-request policy listens).
    expect(doubles.unhandledRequests).toEqual([]);
    // The interceptors are nock 15's own: it lists them while the interception is live.
    expect(nock15.activeMocks().length).toBeGreaterThan(0);
    interception.stop();
    expect(nock15.activeMocks()).toEqual([]);
  });

  it("lets a user's own nock 15 interceptor answer first on a served origin", async () => {
    doubles = createDoubles({ seed: 1 });
    using _interception = doubles.intercept();
    const secrets = doubles.baseUrls().secrets?.api ?? "";
    nock15(new URL(secrets).origin).get("/v1/sys/health").reply(503, { mocked: true });
    const first = await fetch(`${secrets}/sys/health`);
    expect(first.status).toBe(503);
    const second = await fetch(`${secrets}/sys/health`);
    expect(second.status).toBe(200);
  });
});

// Contract files through nock 15 (the harness runs only the nock transport in this file). Not yet
// here: files with LIST (secrets/core, unknown-methods: nock 15's socket-level parser refuses the
// method, see docs/decisions/transports.md "nock 14 and nock 15") and content-length (a HEAD's and
// an empty 200's Content-Length over node:http); CI runs every contract file through nock 15.
await import("./runs/run-lifecycle.test.js");
await import("./access-control/tokens.test.js");
await import("../scenarios/faults/network-error-shapes.test.js");
