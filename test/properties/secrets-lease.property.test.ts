/** Property: a lease is usable exactly before its expiry on the simulator clock, whatever the steps of time travel. */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { DoublesCore } from "../../src/scenarios/doubles-core.js";
import type { SecretsScenario } from "../../src/scenarios/secrets/secrets-scenario.js";
import { itemsPlugin, type ItemsState } from "../interceptors/secrets/test-engine.js";

describe("secrets leases (property)", () => {
  it("a lease and what it holds live exactly until issue time + ttl, then are gone", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.record({ ttlS: fc.integer({ min: 1, max: 7200 }), renewable: fc.boolean() }), { minLength: 1, maxLength: 4 }),
        fc.array(fc.integer({ min: 0, max: 3_000_000 }), { minLength: 1, maxLength: 6 }),
        async (leases, steps) => {
          const doubles = new DoublesCore([itemsPlugin()]);
          const controls = doubles.controlsOf<SecretsScenario>("secrets");
          const start = doubles.now();
          const issued: { id: string; name: string; ends: number }[] = [];
          for (const [i, lease] of leases.entries()) {
            const response = await doubles.handler.handle({
              method: "POST",
              url: new URL(`https://secrets.test/v1/items/lease/l${i}`),
              headers: { "x-secrets-token": "root-token" },
              body: new TextEncoder().encode(JSON.stringify({ ttl: `${lease.ttlS}s`, renewable: lease.renewable })),
            });
            const body = JSON.parse(String(response.body)) as { lease_id: string; lease_duration: number };
            expect(body.lease_duration).toBe(lease.ttlS);
            issued.push({ id: body.lease_id, name: `l${i}`, ends: start + lease.ttlS * 1000 });
          }
          for (const step of steps) {
            doubles.advance(step);
            const now = doubles.now();
            const live = new Set(controls.leases().map((l) => l.id));
            const items = controls.readMount<ItemsState, ItemsState["items"]>("items", (c) => c.mount.items);
            for (const lease of issued) {
              const alive = now < lease.ends;
              expect(live.has(lease.id), `${lease.id} at +${now - start}ms`).toBe(alive);
              expect(items[lease.name] !== undefined).toBe(alive);
              const lookup = await doubles.handler.handle({
                method: "PUT",
                url: new URL("https://secrets.test/v1/sys/leases/lookup"),
                headers: { "x-secrets-token": "root-token" },
                body: new TextEncoder().encode(JSON.stringify({ lease_id: lease.id })),
              });
              expect(lookup.status).toBe(alive ? 200 : 400);
              if (alive) expect(JSON.parse(String(lookup.body)).data.ttl).toBe(Math.floor((lease.ends - now) / 1000));
            }
          }
        },
      ),
      { numRuns: 40 },
    );
  });
});
