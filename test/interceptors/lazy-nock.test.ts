/**
 * Importing infra-doubles must not load nock: loading it activates nock's request interceptor
 * process-wide (it used to hang node:http clients that send LIST even to the real server). This
 * file must not import nock itself.
 */
import http from "node:http";
import { createRequire } from "node:module";
import { describe, expect, it } from "vitest";
import { createDoubles } from "../../src/scenarios/doubles.js";

const require = createRequire(import.meta.url);
const nockLoaded = (): boolean => Object.keys(require.cache).some((path) => /[\\/]node_modules[\\/]nock[\\/]/.test(path));

describe("nock is loaded lazily", () => {
  it("is not loaded by creating doubles and serving them, so node:http can send LIST to the server", async () => {
    const doubles = createDoubles({ seed: 1 });
    const server = await doubles.listen();
    try {
      const root = doubles.secrets.rootToken;
      const { status, body } = await new Promise<{ status: number; body: string }>((resolve, reject) => {
        const req = http.request(`${server.url}/v1/ssh/roles`, { method: "LIST", headers: { "x-secrets-token": root } }, (res) => {
          let text = "";
          res.on("data", (chunk: Buffer) => (text += chunk.toString()));
          res.on("end", () => resolve({ status: res.statusCode ?? 0, body: text }));
        });
        req.on("error", reject);
        req.end();
      });
      expect(status).toBe(404); // no roles yet: the secrets service's empty-list answer
      expect(JSON.parse(body)).toEqual({ errors: [] });
      expect(nockLoaded()).toBe(false);
    } finally {
      await server.close();
    }
  });

  it("is loaded on the first intercept()", () => {
    const doubles = createDoubles({ seed: 1 });
    const interception = doubles.intercept();
    interception.stop();
    expect(nockLoaded()).toBe(true);
  });
});
