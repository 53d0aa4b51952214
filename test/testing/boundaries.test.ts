/**
 * The bounds the testing kit draws valid values from, pinned at their edges through HTTP on every
 * transport: the value at each bound is accepted and the one just past it is refused with the
 * message the kit labels. fast-check draws with a random seed in CI, so a bound the kit gets wrong
 * by one fails only when a draw lands on it (a 60 s static-role rotation period once did); these
 * tests fail every time instead.
 */
import fc from "fast-check";
import { expect, it } from "vitest";
import { createDoubles } from "../../src/index.js";
import { defaultSettings } from "../../src/simulator/access-control/state.js";
import { MIN_ROTATION_PERIOD_SECONDS } from "../../src/simulator/secrets/cloud/static-roles.js";
import { RSA_KEY_BITS } from "../../src/simulator/secrets/managed-keys.js";
import { CloudScenario } from "../../src/scenarios/secrets/cloud/cloud-scenario.js";
import { readServiceError } from "../../src/testing/errors.js";
import { expirationTtl } from "../../src/testing/access-control-bodies.js";
import { describeEachTransport } from "../support/transports.js";

describeEachTransport("testing kit: the bounds its arbitraries draw from", (t) => {
  it("a token's ExpirationTTL: the minimum and maximum are accepted, a second past either is refused; the kit draws only within", async () => {
    const { doubles, base } = await t.startWith(createDoubles({ seed: 71 }));
    const root = doubles.accessControl.bootstrapToken.secretId;
    const put = (ttl: string) => fetch(`${base("accessControl")}/acl/token`, { method: "PUT", headers: { "x-acl-token": root }, body: JSON.stringify({ ExpirationTTL: ttl }) });
    const { minExpirationTtlMs, maxExpirationTtlMs } = defaultSettings();
    const min = minExpirationTtlMs / 1000;
    const max = maxExpirationTtlMs / 1000;
    expect((await put(`${min}s`)).status).toBe(200);
    expect((await put(`${max}s`)).status).toBe(200);
    // The service's own words and status (a 500, as the real service answers this refusal).
    expect(await readServiceError("accessControl", await put(`${min - 1}s`))).toEqual({ status: 500, message: `Token Expiration TTL '${min - 1}s' should be > ${min / 60}m0s` });
    expect(await readServiceError("accessControl", await put(`${max + 1}s`))).toEqual({ status: 500, message: `Token Expiration TTL '${max / 3600}h0m1s' should be < ${max / 3600}h0m0s` });
    const seconds = (text: string) => Number(/^(\d+)([smh])$/.exec(text)?.[1]) * { s: 1, m: 60, h: 3600 }[text.slice(-1) as "s" | "m" | "h"];
    for (const ttl of fc.sample(expirationTtl(), { numRuns: 500, seed: 71 })) {
      expect(seconds(ttl)).toBeGreaterThanOrEqual(min);
      expect(seconds(ttl)).toBeLessThanOrEqual(max);
    }
  });

  it("a static role's rotation period: the minimum is accepted, one second less is refused with the kit's label", async () => {
    const { doubles, base } = await t.startWith(createDoubles({ seed: 72 }));
    const cloud = new CloudScenario(doubles.secrets);
    cloud.configureRoot();
    cloud.createIamUser("app");
    let next = 0;
    const post = (period: number) =>
      fetch(`${base("secrets")}/cloud/static-roles/edge${++next}`, { method: "POST", headers: { "x-vault-token": doubles.secrets.rootToken }, body: JSON.stringify({ username: "app", rotation_period: period }) });
    expect((await post(MIN_ROTATION_PERIOD_SECONDS)).status).toBe(200);
    expect(await readServiceError("secrets", await post(MIN_ROTATION_PERIOD_SECONDS - 1))).toEqual({
      status: 500,
      message: `role rotation period out of range: must be greater than ${MIN_ROTATION_PERIOD_SECONDS.toFixed(2)} seconds`,
    });
  });

  it("managed keys: max_parallel 0 and every RSA size are accepted; max_parallel -1 and the sizes next to them are refused", async () => {
    const { doubles, base } = await t.startWith(createDoubles({ seed: 73 }));
    let next = 0;
    const post = (body: Record<string, unknown>) =>
      fetch(`${base("secrets")}/sys/managed-keys/pkcs11/edge${++next}`, {
        method: "POST",
        headers: { "x-vault-token": doubles.secrets.rootToken },
        body: JSON.stringify({ library: "hsm", key_label: "k", mechanism: "0x0001", pin: "1234", slot: "0", ...body }),
      });
    expect((await post({ max_parallel: 0 })).status).toBe(204);
    expect(await readServiceError("secrets", await post({ max_parallel: -1 }))).toEqual({ status: 400, message: "max_parallel must be positive" });
    for (const bits of RSA_KEY_BITS) {
      expect((await post({ key_bits: bits })).status).toBe(204);
      for (const off of [bits - 1, bits + 1]) {
        expect(await readServiceError("secrets", await post({ key_bits: off }))).toEqual({ status: 400, message: `invalid key_bits ${off}: must be 2048, 3072 or 4096` });
      }
    }
  });
});
