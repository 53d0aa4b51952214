/**
 * The nearest-endpoints search is bounded (issue 8, defect 8): a request that matches no endpoint
 * costs at most a matched one plus time linear in the number of routes, whatever its path length.
 * The longest path every transport takes (the request head limit is 16 KiB, `head-limit.ts`) is
 * answered with the service's own miss and a nearest-endpoints header, and the search itself takes
 * a 1 MB path; the test timeout is the only clock here (no timing assertion).
 */
import { expect, it } from "vitest";
import { NEAREST_HEADER } from "../../src/interceptors/handler.js";
import { nearestInCatalog } from "../../src/interceptors/router.js";
import { createDoubles } from "../../src/scenarios/doubles.js";
import { describeEachTransport } from "../support/transports.js";

it("names the nearest endpoints of a 1 MB path", () => {
  const catalog = Array.from({ length: 400 }, (_, i) => `GET /ssh/roles/${i}/:name/x${i}`);
  const path = `/ssh/${Array.from({ length: 4096 }, (_, i) => `${i}`.padEnd(255, "x")).join("/")}`;
  expect(nearestInCatalog(catalog, "GET", path)).toHaveLength(3);
});

describeEachTransport("very long unmatched paths", (t) => {
  const length = 15 * 1024;
  /** `segments` segments of equal length, `length` characters in all. */
  const longPath = (segments: number) =>
    Array.from({ length: segments }, (_, i) => `${i}`.padEnd(Math.floor(length / segments) - 1, "x")).join("/").slice(0, length);

  it("answers each service with its miss and the nearest endpoints", async () => {
    const { base, doubles } = await t.startWith(createDoubles({ seed: 1 }));
    const token = doubles.secrets.rootToken;
    const headers = { "x-secrets-token": token, "content-type": "application/json" };
    for (const mount of ["a", "b/c", "team/items", "x%F0%9F%92%A5"]) {
      expect((await fetch(`${base("secrets")}/sys/mounts/${mount}`, { method: "POST", headers, body: JSON.stringify({ type: "ssh" }) })).status).toBe(204);
    }
    for (const segments of [1, 64, 4096]) {
      const path = longPath(segments);
      const secrets = await fetch(`${base("secrets")}/ssh/${path}`, { headers });
      expect(secrets.status).toBe(404);
      expect(secrets.headers.get(NEAREST_HEADER)).toMatch(/\/v1\/ssh\//);
      const runs = await fetch(`${base("runs")}/runz/${path}`);
      expect(runs.status).toBe(404);
      expect(runs.headers.get(NEAREST_HEADER)).toMatch(/\/api\/v2\/runs/);
      const acl = await fetch(`${base("accessControl")}/acl/token/${path}`, { method: "POST" });
      expect([404, 405]).toContain(acl.status);
      expect(acl.headers.get(NEAREST_HEADER)).toMatch(/\/v1\/acl\/token/);
    }
  });
});
