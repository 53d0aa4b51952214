/**
 * The temporal matchers of `infra-doubles/vitest`, through every transport: each has a passing and
 * a failing example over requests sent through HTTP at simulated times (the manual clock moved by
 * the test), and `.not` inverts it. A failure names the rule broken and the offending requests
 * with their simulated times, ISO and relative to the first request.
 */
import { expect, it } from "vitest";
import { createDoubles } from "../../src/index.js";
import { installCloudDefaults, sshScenario } from "../../src/scenarios/secrets/index.js";
import "../../src/scenarios/vitest-entry.js";
import { parseContract } from "../../src/scenarios/temporal-matchers.js";
import { describeEachTransport } from "../support/transports.js";

function failure(run: () => void): string {
  try {
    run();
  } catch (error) {
    return (error as Error).message;
  }
  throw new Error("the assertion passed");
}

describeEachTransport("temporal matchers", (t) => {
  const start = async () => {
    const started = await t.startWith(createDoubles({ seed: 1, start: "2024-01-01T00:00:00Z" }));
    const { doubles } = started;
    installCloudDefaults(doubles.secrets);
    const api = started.base("secrets");
    const root = doubles.secrets.rootToken;
    const call = async (method: string, path: string, body?: unknown, token = root) => {
      const response = await fetch(`${api}${path}`, {
        method,
        headers: { "x-secrets-token": token, ...(body === undefined ? {} : { "content-type": "application/json" }) },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      });
      const text = await response.text();
      return { status: response.status, body: text === "" ? undefined : (JSON.parse(text) as { lease_id?: string; auth?: { client_token: string } }) };
    };
    expect((await call("POST", "/sys/mounts/cloud/tune", { default_lease_ttl: "1h", max_lease_ttl: "768h" })).status).toBe(204);
    const lease = async () => (await call("GET", "/cloud/creds/deploy")).body?.lease_id ?? "";
    const token = async (ttl = "1h") => (await call("POST", "/auth/token/create", { ttl })).body?.auth?.client_token ?? "";
    return { doubles, call, lease, token, acl: started.base("accessControl") };
  };

  it("toRenewBefore('lease', 2/3): renewals within 2/3 of the TTL pass; one at 50 min of 1 h fails, naming it with its times", async () => {
    const { doubles, call, lease } = await start();
    const id = await lease();
    doubles.advance("30m");
    expect((await call("PUT", "/sys/leases/renew", { lease_id: id })).status).toBe(200);
    doubles.advance("39m");
    expect((await call("PUT", "/sys/leases/renew", { lease_id: id })).status).toBe(200);
    expect(doubles).toRenewBefore("lease", 2 / 3);
    doubles.advance("50m");
    expect((await call("PUT", `/sys/leases/renew/${id}`, {})).status).toBe(200);
    expect(doubles).not.toRenewBefore("lease", 2 / 3);
    expect(doubles).toRenewBefore("lease", 0.9);
    const message = failure(() => expect(doubles).toRenewBefore("lease", 2 / 3));
    expect(message).toContain("expected every lease renewed before 2/3 of its TTL, but 1 request broke it");
    expect(message).toContain(`renew-before=lease:2/3: lease ${id} renewed 50m into its 1h TTL, past 2/3 of it (40m)`);
    expect(message).toMatch(/#\d+ 2024-01-01T01:09:00\.000Z \(\+1h9m\) PUT \/sys\/leases\/renew -> 200/);
    expect(message).toMatch(/#\d+ 2024-01-01T01:59:00\.000Z \(\+1h59m\) PUT \/sys\/leases\/renew\/\*lease_id -> 200/);
    expect(failure(() => expect(doubles).not.toRenewBefore("lease", 0.9))).toMatch(/expected a request breaking "every lease renewed before 9\/10 of its TTL", but the \d+ requests in the journal kept it/);
  });

  it("toRenewBefore('lease'): a renewal after the lease expired fails", async () => {
    const { doubles, call, lease } = await start();
    const id = await lease();
    doubles.advance("61m");
    expect((await call("PUT", "/sys/leases/renew", { lease_id: id })).status).toBe(400);
    expect(failure(() => expect(doubles).toRenewBefore("lease", 2 / 3))).toContain(`lease ${id} expired at 2024-01-01T01:00:00.000Z (its 1h TTL from 2024-01-01T00:00:00.000Z) and was renewed only 1m later`);
  });

  it("toRenewBefore('token', f): renew-self in time passes, late fails; a renewed token used after it lapsed fails", async () => {
    const { doubles, call, token } = await start();
    const secret = await token();
    doubles.advance("20m");
    expect((await call("POST", "/auth/token/renew-self", {}, secret)).status).toBe(200);
    expect(doubles).toRenewBefore("token", 0.5);
    doubles.advance("45m");
    expect((await call("POST", "/auth/token/renew-self", {}, secret)).status).toBe(200);
    expect(doubles).not.toRenewBefore("token", 0.5);
    expect(failure(() => expect(doubles).toRenewBefore("token", 0.5))).toMatch(/token s\.\w{2}…\w{4} renewed 45m into its 1h TTL, past 1\/2 of it \(30m\)/);
    doubles.advance("2h");
    await call("GET", "/auth/token/lookup-self", undefined, secret);
    expect(failure(() => expect(doubles).toRenewBefore("token", 0.9))).toMatch(/expired at 2024-01-01T02:05:00\.000Z without being renewed, and was still used 1h later/);
  });

  it("toNeverUseExpired: a token used within its TTL passes; after expiry or revocation fails; an OTP-like second use is caught", async () => {
    const { doubles, call, token } = await start();
    const live = await token("1h");
    doubles.advance("30m");
    expect((await call("GET", "/auth/token/lookup-self", undefined, live)).status).toBe(200);
    expect(doubles).toNeverUseExpired();
    doubles.advance("31m");
    expect((await call("GET", "/auth/token/lookup-self", undefined, live)).status).toBe(403);
    expect(doubles).not.toNeverUseExpired();
    expect(failure(() => expect(doubles).toNeverUseExpired())).toMatch(/never-use-expired: token s\.\w{2}…\w{4} was sent 1m after it expired \(at 2024-01-01T01:00:00\.000Z, 1h after it was issued\)\n {2}#\d+ 2024-01-01T00:00:00\.000Z \(\+0ms\) POST \/auth\/token\/create -> 200\n {2}#\d+ 2024-01-01T01:01:00\.000Z \(\+1h1m\) GET \/auth\/token\/lookup-self -> 403/);

    doubles.journal.clear();
    const revoked = await token("1h");
    expect((await call("POST", "/auth/token/revoke-self", {}, revoked)).status).toBe(204);
    doubles.advance("5s");
    await call("GET", "/auth/token/lookup-self", undefined, revoked);
    expect(failure(() => expect(doubles).toNeverUseExpired())).toMatch(/was sent 5s after it was revoked/);
  });

  it("toNeverUseExpired: an access-control token with ExpirationTTL, used after its ExpirationTime or its deletion, fails", async () => {
    const { doubles, acl } = await start();
    const bootstrap = doubles.accessControl.bootstrapToken.secretId;
    const create = async () => {
      const response = await fetch(`${acl}/acl/token`, { method: "PUT", headers: { "X-Acl-Token": bootstrap, "content-type": "application/json" }, body: JSON.stringify({ ExpirationTTL: "10m" }) });
      expect(response.status).toBe(200);
      return (await response.json()) as { SecretID: string; AccessorID: string };
    };
    const self = async (secret: string) => (await fetch(`${acl}/acl/token/self`, { headers: { "X-Acl-Token": secret } })).status;
    const token = await create();
    doubles.advance("9m");
    expect(await self(token.SecretID)).toBe(200);
    expect(doubles).toNeverUseExpired();
    doubles.advance("2m");
    await self(token.SecretID);
    expect(failure(() => expect(doubles).toNeverUseExpired())).toMatch(new RegExp(`ACL token ${token.AccessorID} was sent 1m after it expired \\(at 2024-01-01T00:10:00\\.000Z, 10m after it was issued\\)\\n {2}#\\d+ \\S+ \\(\\+0ms\\) PUT /acl/token -> 200`));

    // toRenewBefore("token") judges it too: an access-control token cannot be renewed, so it was not replaced in time.
    expect(failure(() => expect(doubles).toRenewBefore("token", 2 / 3))).toContain(`ACL token ${token.AccessorID} expired at 2024-01-01T00:10:00.000Z without being replaced, and was still used 1m later`);

    doubles.journal.clear();
    const deleted = await create();
    expect((await fetch(`${acl}/acl/token/${deleted.AccessorID}`, { method: "DELETE", headers: { "X-Acl-Token": bootstrap } })).status).toBe(200);
    doubles.advance("1s");
    expect(await self(deleted.SecretID)).toBe(403);
    expect(failure(() => expect(doubles).toNeverUseExpired())).toMatch(new RegExp(`ACL token ${deleted.AccessorID} was sent 1s after it was revoked`));
  });

  it("toNeverUseExpired: an OTP verified twice fails the second time", async () => {
    const { doubles, call } = await start();
    sshScenario(doubles.secrets, "ssh").addOtpRole("otp-role", { cidrList: "10.0.0.0/8" });
    const otp = (await call("POST", "/ssh/creds/otp-role", { ip: "10.0.0.5" })).body as unknown as { data: { key: string } };
    expect((await call("POST", "/ssh/verify", { otp: otp.data.key })).status).toBe(200);
    expect(doubles).toNeverUseExpired();
    doubles.advance("3s");
    expect((await call("POST", "/ssh/verify", { otp: otp.data.key })).status).toBe(400);
    expect(failure(() => expect(doubles).toNeverUseExpired())).toMatch(/OTP \S+ was sent 3s after it was used \(at 2024-01-01T00:00:00\.000Z\)\n {2}#\d+ \S+ \(\+0ms\) POST \/ssh\/verify -> 200\n {2}#\d+ \S+ \(\+3s\) POST \/ssh\/verify -> 400/);
  });

  it("toHonorRetryAfter: a retry after the Retry-After passes, one before it fails", async () => {
    const { doubles, call, token } = await start();
    const secret = await token("24h");
    doubles.faults.add({ service: "secrets", route: "GET /auth/token/lookup-self", answer: "rate-limited", retryAfter: "2s", times: 2 });
    expect((await call("GET", "/auth/token/lookup-self", undefined, secret)).status).toBe(429);
    doubles.advance("2s");
    expect((await call("GET", "/auth/token/lookup-self", undefined, secret)).status).toBe(429);
    expect(doubles).toHonorRetryAfter();
    doubles.advance("1s");
    expect((await call("GET", "/auth/token/lookup-self", undefined, secret)).status).toBe(200);
    expect(doubles).not.toHonorRetryAfter();
    expect(failure(() => expect(doubles).toHonorRetryAfter())).toMatch(/honor-retry-after: retried 1s after a 429 whose Retry-After asked for 2s \(not before 2024-01-01T00:00:04\.000Z\)\n {2}#\d+ 2024-01-01T00:00:02\.000Z \(\+2s\) GET \/auth\/token\/lookup-self -> 429\n {2}#\d+ 2024-01-01T00:00:03\.000Z \(\+3s\) GET/);
  });

  it("toBackOff({ factor }): gaps of 1s, 2s, 4s pass factor 2; a retry 1s after a 2s gap fails", async () => {
    const { doubles, call, token } = await start();
    const secret = await token("24h");
    doubles.faults.add({ service: "secrets", route: "GET /auth/token/lookup-self", answer: "internal-error", times: 4 });
    for (const wait of ["1s", "2s", "4s"]) {
      await call("GET", "/auth/token/lookup-self", undefined, secret);
      doubles.advance(wait);
    }
    await call("GET", "/auth/token/lookup-self", undefined, secret);
    expect(doubles).toBackOff({ factor: 2 });
    doubles.advance("1s");
    expect((await call("GET", "/auth/token/lookup-self", undefined, secret)).status).toBe(200);
    expect(doubles).not.toBackOff({ factor: 2 });
    expect(failure(() => expect(doubles).toBackOff({ factor: 2 }))).toMatch(/back-off=2: retry 1s after the previous attempt, less than 2 x the gap before it \(4s, so at least 8s\)\n {2}#\d+ \S+ \(\+7s\) GET \/auth\/token\/lookup-self -> 500\n {2}#\d+ \S+ \(\+8s\) GET \/auth\/token\/lookup-self -> 200/);
  });

  it("toPollNoFasterThan: GETs 5 s apart pass '5s'; one 2 s later fails", async () => {
    const { doubles, call, token } = await start();
    const secret = await token("24h");
    for (let i = 0; i < 3; i++) {
      await call("GET", "/auth/token/lookup-self", undefined, secret);
      doubles.advance("5s");
    }
    expect(doubles).toPollNoFasterThan("5s");
    await call("GET", "/auth/token/lookup-self", undefined, secret);
    doubles.advance("2s");
    await call("GET", "/auth/token/lookup-self", undefined, secret);
    expect(doubles).not.toPollNoFasterThan("5s");
    expect(doubles).toPollNoFasterThan(2000);
    expect(failure(() => expect(doubles).toPollNoFasterThan("5s"))).toMatch(/poll-no-faster-than=5s: polled 2s after the previous GET of the same URL, faster than once every 5s\n {2}#\d+ 2024-01-01T00:00:15\.000Z \(\+15s\) GET \/auth\/token\/lookup-self -> 200\n {2}#\d+ 2024-01-01T00:00:17\.000Z \(\+17s\) GET/);
  });
});

it("refuses bad arguments with a usage error", () => {
  const doubles = createDoubles({ seed: 1 });
  expect(() => expect(doubles).toRenewBefore("lease", 1.5)).toThrow(/fraction of the TTL must be above 0 and at most 1/);
  expect(() => expect(doubles).toRenewBefore("secret" as never, 0.5)).toThrow(/kind must be "lease" or "token"/);
  expect(() => expect(doubles).toBackOff({ factor: 0.5 })).toThrow(/factor must be a number of at least 1/);
  expect(() => expect(doubles).toPollNoFasterThan("5")).toThrow(/not a duration/);
  expect(() => expect({}).toNeverUseExpired()).toThrow(/temporal matchers expect the doubles/);
  expect(parseContract("renew-before=lease:2/3")).toEqual({ rule: "renew-before", kind: "lease", fraction: 2 / 3 });
  expect(parseContract("poll-no-faster-than=5s")).toEqual({ rule: "poll-no-faster-than", intervalMs: 5000 });
  expect(() => parseContract("renew-before=secret:2/3")).toThrow(/renew-before takes "lease" or "token"/);
  expect(() => parseContract("never-use-expired=1")).toThrow(/takes no value/);
});
