/**
 * A request to an intercepted host that matches none of a service's endpoints gets the service's
 * own error plus the nearest endpoints in `x-infra-doubles-nearest` and in the journal; a request
 * to a real endpoint that answers 404 (a missing resource) does not.
 */
import { expect, it } from "vitest";
import { createDoubles } from "../../src/scenarios/doubles.js";
import { describeEachTransport } from "../support/transports.js";

describeEachTransport("nearest routes for requests that match no endpoint", (t) => {
  const start = () => t.startWith(createDoubles({ seed: 1 }));

  it("names the nearest run orchestration endpoints", async () => {
    const { base } = await start();
    const response = await fetch(`${base("runs")}/runz`, { method: "POST", body: "{}" });
    expect(response.status).toBe(404);
    expect(response.headers.get("x-infra-doubles-nearest")?.split("; ")[0]).toBe("POST /api/v2/runs");
  });

  it("names the nearest access-control endpoints, keeping the plain-text body", async () => {
    const { base } = await start();
    const response = await fetch(`${base("accessControl")}/acl/tokenz`);
    expect([response.status, await response.text()]).toEqual([404, "404 page not found\n"]);
    expect(response.headers.get("x-infra-doubles-nearest")).toContain("GET /v1/acl/tokens");
  });

  it("names the nearest secrets endpoints, mounts included, for a caller allowed to see them", async () => {
    const { base, doubles } = await start();
    const headers = { "x-secrets-token": doubles.secrets.rootToken };
    const health = await fetch(`${base("secrets")}/sys/helth`, { headers });
    expect(health.status).toBe(404);
    expect(health.headers.get("x-infra-doubles-nearest")?.split("; ")).toContain("GET /v1/sys/health");
    const roles = await fetch(`${base("secrets")}/ssh/rolez/web`, { headers });
    expect(roles.headers.get("x-infra-doubles-nearest")).toContain("/v1/ssh/roles/:name");
  });

  it("leaves a real endpoint's 404 alone and journals the miss", async () => {
    const { base, doubles } = await start();
    const missing = await fetch(`${base("secrets")}/ssh/roles/nobody`, { headers: { "x-secrets-token": doubles.secrets.rootToken } });
    expect(missing.status).toBe(404);
    expect(missing.headers.get("x-infra-doubles-nearest")).toBeNull();
    if (t.name !== "server") {
      // The in-process transports answer from doubles.handler, whose journal the test can read.
      await fetch(`${base("runs")}/runz`);
      // `/runz` is as near `GET /api/v2/ping` as the runs routes since issue 23 served ping.
      expect(doubles.handler.journal.at(-1)?.nearest).toEqual(expect.arrayContaining([expect.stringMatching(/ \/api\/v2\/runs/)]));
    }
  });
});
