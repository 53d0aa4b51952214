// The temporal matchers under Jest, in the packaging consumer (.ci/run copies
// test/packaging/*.jest.test.cjs there): expect.extend(temporalMatchers) from the main entry, a
// token renewed in time and one renewed late, on the manual clock.
/* global require, test, expect */
/* eslint-disable @typescript-eslint/no-require-imports */
const { createDoubles, temporalMatchers } = require("infra-doubles");

expect.extend(temporalMatchers);

test("toRenewBefore and toNeverUseExpired work under Jest, .not included", async () => {
  const doubles = createDoubles({ seed: 1, start: "2024-01-01T00:00:00Z" });
  doubles.intercept();
  try {
    const api = doubles.baseUrls().secrets.api;
    const call = (path, token, body) =>
      fetch(`${api}${path}`, { method: "POST", headers: { "x-vault-token": token, "content-type": "application/json" }, body: JSON.stringify(body ?? {}) }).then((r) => r.json());
    const created = await call("/auth/token/create", doubles.secrets.rootToken, { ttl: "1h" });
    const token = created.auth.client_token;
    doubles.advance("30m");
    await call("/auth/token/renew-self", token);
    expect(doubles).toRenewBefore("token", 2 / 3);
    doubles.advance("50m");
    await call("/auth/token/renew-self", token);
    expect(doubles).not.toRenewBefore("token", 2 / 3);
    expect(() => expect(doubles).toRenewBefore("token", 2 / 3)).toThrow(/renewed 50m into its 1h TTL, past 2\/3 of it \(40m\)\n {2}#2 2024-01-01T00:30:00\.000Z \(\+30m\)/);
    expect(doubles).toNeverUseExpired();
  } finally {
    await doubles.close();
  }
});
