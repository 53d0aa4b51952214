/**
 * Access-control benchmarks (`npm run bench`), through the transport-free handler, with 100 and
 * 1 000 tokens stored. Each write bench creates a token and deletes it again, so the stored count
 * stays put; a write is a transaction, so it includes the kernel's copy of the service state.
 * Measured in the audit (2-core container, median): at 100 tokens create+delete 0.3 ms, list
 * 0.3 ms, read 0.015 ms; at 1 000 tokens create+delete 1.9-2.0 ms (0.85 ms of each write is the
 * kernel's state copy), list 3.5 ms (was 10.7 ms before the audit's per-request access cache and
 * memoised timestamps).
 */
import { bench, describe } from "vitest";
import { createAccessControlPlugin } from "../src/scenarios/access-control/plugin.js";
import type { AccessControlScenario } from "../src/scenarios/access-control/scenario.js";
import { DoublesCore } from "../src/scenarios/doubles-core.js";

function withTokens(count: number) {
  const doubles = new DoublesCore([createAccessControlPlugin()], { seed: 1 });
  const acl = doubles.controlsOf<AccessControlScenario>("accessControl");
  acl.createPolicy({ name: "acl-read", rules: 'acl = "read"' });
  acl.createAuthMethod({ name: "k8s", type: "kubernetes" });
  acl.registerBearerToken("k8s", "jwt", { name: "web", namespace: "default" });
  acl.createBindingRule({ authMethod: "k8s", bindType: "service", bindName: "${serviceaccount.name}" });
  let last = "";
  for (let i = 0; i < count; i++) last = acl.createToken({ description: `t${i}`, policies: ["acl-read"], serviceIdentities: ["web"] }).accessorId;
  const base = doubles.baseUrls().accessControl?.api ?? "";
  const headers = { "x-acl-token": acl.bootstrapToken.secretId, "content-type": "application/json" };
  const request = (method: string, path: string, body = "") => ({
    method,
    url: new URL(`${base}${path}`),
    headers,
    body: new TextEncoder().encode(body),
  });
  return { doubles, acl, last, request };
}

for (const count of [100, 1000]) {
  describe(`${count} tokens`, () => {
    const { doubles, acl, last, request } = withTokens(count);
    bench("scenario createToken + deleteToken (simulator only)", () => {
      acl.deleteToken(acl.createToken({ description: "bench", policies: ["acl-read"] }).accessorId);
    });
    bench("PUT /acl/token + DELETE /acl/token/:id", async () => {
      const created = await doubles.handler.handle(request("PUT", "/acl/token", '{"Description":"bench","Policies":[{"Name":"acl-read"}]}'));
      const id = (JSON.parse(String(created.body)) as { AccessorID: string }).AccessorID;
      await doubles.handler.handle(request("DELETE", `/acl/token/${id}`));
    });
    bench("GET /acl/token/:id", async () => {
      await doubles.handler.handle(request("GET", `/acl/token/${last}`));
    });
    bench("GET /acl/tokens", async () => {
      await doubles.handler.handle(request("GET", "/acl/tokens"));
    });
    bench("POST /acl/login + POST /acl/logout", async () => {
      const token = await doubles.handler.handle(request("POST", "/acl/login", '{"AuthMethod":"k8s","BearerToken":"jwt"}'));
      const secret = (JSON.parse(String(token.body)) as { SecretID: string }).SecretID;
      await doubles.handler.handle({ ...request("POST", "/acl/logout"), headers: { "x-acl-token": secret } });
    });
  });
}
