// Packaging smoke test, CommonJS side: run with `node --test` in a fresh project where the packed
// tarball is installed (see .ci/run). It requires the package the way a user does. .ci/run also
// type-checks this file (checkJs) against the package's CommonJS declarations.
/* global require */
/* eslint-disable @typescript-eslint/no-require-imports */
const assert = require("node:assert/strict");
const { test } = require("node:test");
const nock = require("nock"); // nock 14, the peer range (nock 15 would give { default })
const infra = require("infra-doubles");
const { ManualClock, UsageError } = require("infra-doubles/simulator");
const { interceptWithNock } = require("infra-doubles/nock");
const { startServer } = require("infra-doubles/server");
const testing = require("infra-doubles/testing");
const coverage = require("infra-doubles/coverage");
const fc = require("fast-check");

// Properties draw from a fixed seed, so this file never fails on a new draw; FC_SEED=<n> replays
// another one (a failure prints its seed and path).
const FC_SEED = process.env.FC_SEED ? Number(process.env.FC_SEED) : 22;
fc.configureGlobal({ seed: FC_SEED });
console.log(`fast-check: seed ${FC_SEED}`);

test("require() gives createDoubles, the kernel and every transport", () => {
  assert.equal(typeof infra.createDoubles, "function");
  assert.equal(typeof infra.DoublesCore, "function");
  assert.equal(typeof interceptWithNock, "function");
  assert.equal(typeof startServer, "function");
});

test("a ManualClock advances and refuses to go back", () => {
  const clock = new ManualClock(0);
  assert.equal(clock.advance("1h"), 3_600_000);
  assert.throws(() => clock.set(0), UsageError);
  const doubles = infra.createDoubles({ clock });
  doubles.advance(1000);
  assert.equal(doubles.now(), 3_601_000);
});

test("intercept() answers every service's base URL, and close() removes every interceptor", async () => {
  const doubles = infra.createDoubles({ seed: 3 });
  const interception = doubles.intercept();
  for (const [key, bases] of Object.entries(doubles.baseUrls())) {
    const response = await fetch(`${bases.api}/__infra_doubles_smoke__`);
    assert.ok(response.status >= 400 && response.status < 500, `${key}: ${response.status}`);
  }
  assert.deepEqual(interception.origins, [...new Set(Object.values(doubles.baseUrls()).flatMap((b) => Object.values(b).map((u) => new URL(u).origin)))]);
  await doubles.close();
  assert.equal(interception.stopped, true);
  assert.deepEqual(nock.activeMocks(), []);
});

test("access control and secrets answer through the local server from require()", async () => {
  const doubles = infra.createDoubles({ seed: 2 });
  const server = await doubles.listen();
  try {
    const root = doubles.accessControl.bootstrapToken.secretId;
    const created = await fetch(`${server.url}/v1/acl/token`, {
      method: "PUT",
      headers: { "x-acl-token": root },
      body: JSON.stringify({ Description: "ci", ExpirationTTL: "5m" }),
    });
    assert.equal(created.status, 200);
    const token = await created.json();
    doubles.advance("5m");
    const self = await fetch(`${server.url}/v1/acl/token/self`, { headers: { "x-acl-token": token.SecretID } });
    assert.equal(self.status, 403);
    assert.equal(await self.text(), "ACL not found");

    const health = await fetch(`${server.url}/v1/sys/health`);
    assert.equal(health.status, 200);
    assert.equal((await health.json()).server_time_utc, Math.floor(doubles.now() / 1000));
  } finally {
    await server.close();
  }
});

test("require('infra-doubles/testing') gives the arbitraries: invalid token bodies get exactly their labelled 400", async () => {
  const doubles = infra.createDoubles({ seed: 5 });
  const send = testing.handlerFetch(doubles);
  const url = `${doubles.baseUrls().accessControl.api}/acl/token`;
  const headers = { "x-acl-token": doubles.accessControl.bootstrapToken.secretId };
  await fc.assert(
    fc.asyncProperty(testing.invalidTokenBody(), async ({ body, expected }) => {
      assert.deepEqual(await testing.readServiceError("accessControl", await send(url, { method: "PUT", headers, body: JSON.stringify(body) })), expected);
    }),
    { numRuns: 10 },
  );
});

test("require('infra-doubles/coverage') gives the merge and the global setup", () => {
  assert.equal(typeof coverage.default, "function");
  assert.equal(coverage.mergeCoverage([]).format, "infra-doubles-coverage/1");
});
