/**
 * Cloud secrets engine rows (`npm run bench`, see bench/README.md): username templates, credentials
 * through the transport-free handler, and static-role rotations on the scheduler.
 */
import { IdSource } from "../src/simulator/kernel/ids.js";
import { Simulator } from "../src/simulator/kernel/simulator.js";
import { DoublesCore } from "../src/scenarios/doubles-core.js";
import { createSecretsPlugin } from "../src/scenarios/secrets/plugin.js";
import type { SecretsScenario } from "../src/scenarios/secrets/secrets-scenario.js";
import { cloudScenario, installCloudDefaults } from "../src/scenarios/secrets/cloud/index.js";
import { generateUsername } from "../src/simulator/secrets/cloud/username-template.js";
import { demoDefinition, type DemoState } from "../test/support/demo-service.js";
import { demoGet } from "./fixtures.js";
import { row } from "./table.js";

const NOW = 1_704_067_200_000;

row({
  name: "username template: default template, IAM user name",
  clock: "cpu",
  setup: () => {
    const ids = new IdSource(1);
    const anchorIds = new IdSource(1);
    return {
      figure: { label: "template", run: () => generateUsername("iam_user", { displayName: "token-ci", roleName: "deploy", template: "" }, NOW, ids) },
      anchor: { label: "the same parts, hand-built", run: () => `vault-token-ci-deploy-${Math.floor(NOW / 1000)}-${anchorIds.string(20)}`.slice(0, 64) },
    };
  },
});

for (const [name, path] of [
  ["issue iam_user credentials (handler)", "creds/deploy"],
  ["assume a role (handler)", "sts/assume"],
] as const) {
  row({
    name,
    clock: "cpu",
    setup: () => {
      const doubles = new DoublesCore([createSecretsPlugin({ rootToken: "root" })], { seed: 1 });
      installCloudDefaults(doubles.controlsOf<SecretsScenario>("secrets"));
      const request = { method: "POST", url: new URL(`https://secrets.test/v1/cloud/${path}`), headers: { "x-secrets-token": "root" }, body: new Uint8Array() };
      return {
        figure: { label: "handler", run: () => doubles.handler.handle(request) },
        anchor: { label: "demo GET through handle()", run: demoGet() },
      };
    },
  });
}

row({
  name: "static roles: a year of daily rotations",
  clock: "cpu",
  setup: () => ({
    figure: {
      label: "365 rotations",
      run: async () => {
        const doubles = new DoublesCore([createSecretsPlugin({ rootToken: "root" })], { seed: 1 });
        const cloud = cloudScenario(doubles.controlsOf<SecretsScenario>("secrets"));
        cloud.configureRoot();
        cloud.createIamUser("app");
        await doubles.handler.handle({
          method: "POST",
          url: new URL("https://secrets.test/v1/cloud/static-roles/app"),
          headers: { "x-secrets-token": "root", "content-type": "application/json" },
          body: new TextEncoder().encode('{"username":"app","rotation_period":"24h"}'),
        });
        doubles.advance("365d");
      },
    },
    anchor: {
      label: "365 daily demo moves on the kernel",
      run: () => {
        const sim = new Simulator({ services: [demoDefinition] });
        sim.update<DemoState, void>("demo", (ctx) => {
          for (let day = 1; day <= 365; day++) ctx.schedule(ctx.now + day * 86_400_000, "finish", `t${day}`);
        });
        sim.advance("365d");
      },
    },
  }),
});
