import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { DoublesCore } from "../../src/scenarios/doubles-core.js";
import { createSecretsPlugin } from "../../src/scenarios/secrets/plugin.js";
import type { SecretsScenario } from "../../src/scenarios/secrets/secrets-scenario.js";
import { CloudScenario } from "../../src/scenarios/secrets/cloud/cloud-scenario.js";

const PATHS = [
  "config/root",
  "config/rotate-root",
  "config/lease",
  "roles",
  "roles/r",
  "roles/-x",
  "creds/r",
  "sts/r",
  "creds/legacy",
  "static-roles/s",
  "static-creds/s",
];
const FIELDS = [
  "access_key", "secret_key", "region", "max_retries", "username_template", "lease", "lease_max", "credential_type", "role_arns",
  "policy_arns", "policy_document", "iam_groups", "iam_tags", "default_sts_ttl", "max_sts_ttl", "user_path", "permissions_boundary_arn",
  "policy", "arn", "role_arn", "role_session_name", "ttl", "username", "rotation_period",
];
const VALUES = fc.oneof(
  fc.constantFrom("iam_user", "assumed_role", "federation_token", "arn:aws:iam::123456789012:role/R", "arn:aws:iam::aws:policy/P", "{}", "1h", "59s", "0", "-5", "7d", "x", "", "app", "{{ random 70 }}", "{{ if }}", "a=b"),
  fc.integer({ min: -100_000, max: 200_000 }),
  fc.boolean(),
  fc.constant(null),
  fc.array(fc.constantFrom("a", "arn:aws:iam::123456789012:role/R", "k=v", 1), { maxLength: 3 }),
  fc.dictionary(fc.constantFrom("k", "a"), fc.constantFrom("v", 1, true)),
);

const request = fc.record({
  method: fc.constantFrom("GET", "POST", "PUT", "DELETE", "LIST"),
  path: fc.constantFrom(...PATHS),
  body: fc.dictionary(fc.constantFrom(...FIELDS), VALUES, { maxKeys: 5 }),
  advance: fc.constantFrom(0, 0, 1_000, 60_000, 3_600_000),
});

describe("cloud engine input handling", () => {
  it("answers any request with the service's own status and error shape, never a library bug, and keeps nothing of a failed write", async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(request, { minLength: 1, maxLength: 12 }), async (requests) => {
        const doubles = new DoublesCore([createSecretsPlugin({ rootToken: "root" })], { seed: 5 });
        const secrets = doubles.controlsOf<SecretsScenario>("secrets");
        const cloud = new CloudScenario(secrets);
        cloud.configureRoot();
        cloud.createIamUser("app");
        cloud.seedLegacyRole("legacy", '{"Statement":[]}');
        for (const { method, path, body, advance } of requests) {
          doubles.advance(advance);
          const before = doubles.sim.read("secrets", (ctx) => JSON.stringify((ctx.state as { mounts: Record<string, { engineState: unknown }> }).mounts.cloud?.engineState));
          const hasBody = method === "POST" || method === "PUT";
          const response = await doubles.handler.handle({
            method,
            url: new URL(`https://secrets.test/v1/cloud/${path}`),
            headers: { "x-secrets-token": "root", ...(hasBody ? { "content-type": "application/json" } : {}) },
            body: hasBody ? new TextEncoder().encode(JSON.stringify(body)) : new Uint8Array(),
          });
          expect(response.headers["x-infra-doubles-bug"]).toBeUndefined();
          expect([200, 204, 400, 404, 405, 500]).toContain(response.status);
          if (response.status >= 400) {
            const parsed = JSON.parse(String(response.body)) as { errors: unknown };
            expect(Array.isArray(parsed.errors)).toBe(true);
            const after = doubles.sim.read("secrets", (ctx) => JSON.stringify((ctx.state as { mounts: Record<string, { engineState: unknown }> }).mounts.cloud?.engineState));
            expect(after).toBe(before);
          }
        }
      }),
      { numRuns: 60 },
    );
  });
});
