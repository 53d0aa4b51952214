/**
 * Testing the lease renewer's timing against the secrets double: the manual clock moves only when
 * the renewer sleeps (its `sleep` advances the doubles), and `toRenewBefore("lease", 2/3)` judges
 * each renewal against the TTL the service answered. The late renewer (at 9/10 of the TTL) is
 * caught; so is one that waits past the expiry.
 */
import { afterEach, beforeEach, expect, it } from "vitest";
// In an application: import { createDoubles, installCloudDefaults, type Doubles } from "infra-doubles";
// and import "infra-doubles/vitest" (it registers the matchers).
import { createDoubles, installCloudDefaults, type Doubles } from "../../src/index.js";
import "../../src/scenarios/vitest-entry.js";
import { LeaseRenewer } from "./lease-renewer.js";

let doubles: Doubles;

beforeEach(() => {
  doubles = createDoubles({ seed: 1, start: "2024-01-01T00:00:00Z" });
  installCloudDefaults(doubles.secrets); // the `deploy` role, as `infra-doubles serve` has it
  doubles.secrets.tuneMount("cloud", { defaultLeaseTtl: "1h" }); // leases of one hour
  doubles.intercept();
});

afterEach(async () => {
  await doubles.close();
});

function renewer(renewAt: number): LeaseRenewer {
  return new LeaseRenewer({
    baseUrl: doubles.baseUrls().secrets.api,
    token: doubles.secrets.rootToken,
    renewAt,
    sleep: async (ms) => {
      doubles.advance(ms);
    },
  });
}

it("renews at half the TTL: every renewal before 2/3 of it", async () => {
  await renewer(0.5).run(24);
  expect(doubles).toHaveReceivedTimes("POST /sys/leases/renew", 24);
  expect(doubles).toRenewBefore("lease", 2 / 3);
});

it("the late renewer (at 9/10 of the TTL) is caught, with the simulated times of its renewal", async () => {
  await renewer(0.9).run(3);
  // The late version must fail toRenewBefore: asserted with .not, and its message shown.
  expect(doubles).not.toRenewBefore("lease", 2 / 3);
  expect(() => expect(doubles).toRenewBefore("lease", 2 / 3)).toThrow(
    /but 3 requests broke it:\n\nrenew-before=lease:2\/3: lease cloud\/creds\/deploy\/\S+ renewed 54m into its 1h TTL, past 2\/3 of it \(40m\)\n {2}#1 2024-01-01T00:00:00\.000Z \(\+0ms\) GET \/cloud\/creds\/:name -> 200\n {2}#2 2024-01-01T00:54:00\.000Z \(\+54m\) PUT \/sys\/leases\/renew -> 200/,
  );
});

it("a renewer that waits past the expiry fails to renew, and the contract says it expired first", async () => {
  await expect(renewer(1.1).run(1)).rejects.toThrow(/PUT \/sys\/leases\/renew: 400 lease not found/);
  expect(() => expect(doubles).toRenewBefore("lease", 2 / 3)).toThrow(/expired at 2024-01-01T01:00:00\.000Z \(its 1h TTL from 2024-01-01T00:00:00\.000Z\) and was renewed only 6m later/);
});
