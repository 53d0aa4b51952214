/**
 * Cloud engine benchmarks (`npm run bench`). Targets, on the 2-core CI machine kind:
 * - generating a username with the default template: under 0.05 ms;
 * - issuing credentials through the transport-free handler: under 5 ms each, with hundreds of
 *   live leases (measured ~1 ms fresh, growing with the secrets state the core copies per request);
 * - a year of daily static-role rotations (365 timed moves): under 100 ms.
 */
import { bench, describe } from "vitest";
import { IdSource } from "../src/simulator/kernel/ids.js";
import { DoublesCore } from "../src/scenarios/doubles-core.js";
import { createSecretsPlugin } from "../src/scenarios/secrets/plugin.js";
import type { SecretsScenario } from "../src/scenarios/secrets/secrets-scenario.js";
import { cloudScenario, installCloudDefaults } from "../src/scenarios/secrets/cloud/index.js";
import { generateUsername } from "../src/simulator/secrets/cloud/username-template.js";

describe("username template", () => {
  const ids = new IdSource(1);
  bench("default template, IAM user name", () => {
    generateUsername("iam_user", { displayName: "token-ci", roleName: "deploy", template: "" }, 1_704_067_200_000, ids);
  });
});

describe("credentials", () => {
  const doubles = new DoublesCore([createSecretsPlugin({ rootToken: "root" })], { seed: 1 });
  installCloudDefaults(doubles.controlsOf<SecretsScenario>("secrets"));
  const request = (path: string) => ({
    method: "POST",
    url: new URL(`https://secrets.test/v1/cloud/${path}`),
    headers: { "x-secrets-token": "root" },
    body: new Uint8Array(),
  });
  bench("issue iam_user credentials (handler)", async () => {
    await doubles.handler.handle(request("creds/deploy"));
  });
  bench("assume a role (handler)", async () => {
    await doubles.handler.handle(request("sts/assume"));
  });
});

describe("static roles", () => {
  bench("a year of daily rotations", async () => {
    const doubles = new DoublesCore([createSecretsPlugin({ rootToken: "root" })], { seed: 1 });
    const secrets = doubles.controlsOf<SecretsScenario>("secrets");
    const cloud = cloudScenario(secrets);
    cloud.configureRoot();
    cloud.createIamUser("app");
    await doubles.handler.handle({
      method: "POST",
      url: new URL("https://secrets.test/v1/cloud/static-roles/app"),
      headers: { "x-secrets-token": "root", "content-type": "application/json" },
      body: new TextEncoder().encode('{"username":"app","rotation_period":"24h"}'),
    });
    doubles.advance("365d");
  });
});
