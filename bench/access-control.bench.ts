/**
 * Access-control rows (`npm run bench`, see bench/README.md), through the transport-free handler:
 * the same requests with many tokens stored against a few. Each write row creates a token and
 * deletes it again, so the stored count stays put; a write is a transaction.
 */
import { createAccessControlPlugin } from "../src/scenarios/access-control/plugin.js";
import type { AccessControlScenario } from "../src/scenarios/access-control/scenario.js";
import { DoublesCore } from "../src/scenarios/doubles-core.js";
import { row } from "./table.js";

/** Stored tokens of the "many" side (the anchor holds {@link FEW}). */
const MANY = 1_000;
const FEW = 100;

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
  return {
    createDelete: () => acl.deleteToken(acl.createToken({ description: "bench", policies: ["acl-read"] }).accessorId),
    putDelete: async () => {
      const created = await doubles.handler.handle(request("PUT", "/acl/token", '{"Description":"bench","Policies":[{"Name":"acl-read"}]}'));
      const id = (JSON.parse(String(created.body)) as { AccessorID: string }).AccessorID;
      await doubles.handler.handle(request("DELETE", `/acl/token/${id}`));
    },
    read: () => doubles.handler.handle(request("GET", `/acl/token/${last}`)),
    list: () => doubles.handler.handle(request("GET", "/acl/tokens")),
    loginLogout: async () => {
      const token = await doubles.handler.handle(request("POST", "/acl/login", '{"AuthMethod":"k8s","BearerToken":"jwt"}'));
      const secret = (JSON.parse(String(token.body)) as { SecretID: string }).SecretID;
      await doubles.handler.handle({ ...request("POST", "/acl/logout"), headers: { "x-acl-token": secret } });
    },
  };
}

const cases = [
  ["scenario createToken + deleteToken (simulator only)", "createDelete"],
  ["PUT /acl/token + DELETE /acl/token/:id", "putDelete"],
  ["GET /acl/token/:id", "read"],
  ["GET /acl/tokens", "list"],
  ["POST /acl/login + POST /acl/logout", "loginLogout"],
] as const;

for (const [name, key] of cases) {
  row({
    name: `${name}, ${MANY.toLocaleString("en")} tokens stored`,
    clock: "cpu",
    setup: () => {
      const many = withTokens(MANY);
      const few = withTokens(FEW);
      return { figure: { label: `N=${MANY}`, run: many[key] }, anchor: { label: `N=${FEW}`, run: few[key] } };
    },
  });
}
