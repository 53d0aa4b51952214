/**
 * Testing the token rotator against the access-control double: nock intercepts the service, the
 * simulator follows `Date` (vitest fake timers), so moving the system time moves token expiry too.
 */
import { afterEach, beforeEach, expect, it, vi } from "vitest";
// In an application: import { createDoubles, type Doubles } from "infra-doubles";
import { createDoubles, type Doubles } from "../../src/index.js";
import { TokenRotator } from "./token-rotator.js";

let doubles: Doubles;

beforeEach(() => {
  vi.useFakeTimers({ toFake: ["Date"] });
  vi.setSystemTime("2024-01-01T00:00:00Z");
  doubles = createDoubles({ clock: "fake-timers" });
  doubles.intercept();
});

afterEach(async () => {
  await doubles.close();
  vi.useRealTimers();
});

function rotator(): TokenRotator {
  return new TokenRotator({
    baseUrl: doubles.baseUrls().accessControl?.api ?? "",
    managementToken: doubles.accessControl.bootstrapToken.secretId,
    serviceName: "billing",
    ttl: "1h",
    renewBeforeMs: 10 * 60_000,
  });
}

async function whoAmI(secret: string): Promise<number> {
  const response = await fetch(`${doubles.baseUrls().accessControl?.api}/acl/token/self`, { headers: { "X-Acl-Token": secret } });
  return response.status;
}

it("issues a service token with a one-hour lifetime and reuses it while it is fresh", async () => {
  const client = rotator();
  const first = await client.secret();
  expect(client.token?.expiresAt).toBe(Date.parse("2024-01-01T01:00:00Z"));
  const view = doubles.accessControl.token(client.token?.accessorId ?? "");
  expect(view?.serviceIdentities).toEqual([{ serviceName: "billing", datacenters: [] }]);
  vi.setSystemTime("2024-01-01T00:49:59Z");
  expect(await client.secret()).toBe(first);
});

it("rotates ten minutes before expiry, deletes the old token, and the new one keeps working past the old expiry", async () => {
  const client = rotator();
  const first = await client.secret();
  const firstAccessor = client.token?.accessorId ?? "";
  vi.setSystemTime("2024-01-01T00:50:00Z");
  const second = await client.secret();
  expect(second).not.toBe(first);
  expect(doubles.accessControl.token(firstAccessor)).toBeUndefined();
  expect(await whoAmI(first)).toBe(403);
  vi.setSystemTime("2024-01-01T01:30:00Z");
  expect(await whoAmI(second)).toBe(200);
  expect(client.token?.expiresAt).toBe(Date.parse("2024-01-01T01:50:00Z"));
});

it("shows why rotation matters: a token nobody rotates stops working once its expiry has passed", async () => {
  const client = rotator();
  const secret = await client.secret();
  vi.setSystemTime("2024-01-01T00:59:59.999Z");
  expect(await whoAmI(secret)).toBe(200);
  vi.setSystemTime("2024-01-01T01:00:00Z");
  expect(await whoAmI(secret)).toBe(403);
  expect(doubles.accessControl.tokens().map((t) => t.description)).not.toContain("billing (rotated)");
});
