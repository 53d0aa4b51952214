// vitest-context.mts in a CommonJS module (a `"type": "commonjs"` TypeScript project's test file):
// `infra-doubles/vitest` and vitest reached through `require` resolution, the same test context.
import { it, test } from "vitest";
import type { Doubles } from "infra-doubles";
import { useDoubles } from "infra-doubles/vitest";

useDoubles({ seed: 1, uniqueOrigins: true });

it.concurrent("mounts an SSH engine", async ({ doubles, expect }) => {
  const api: string = doubles.baseUrls().secrets.api;
  await fetch(`${api}/sys/mounts/ssh`, { method: "POST", headers: { "x-vault-token": doubles.secrets.rootToken } });
  expect(doubles).toHaveReceived("POST /sys/mounts/*path");
});

test("one at a time", (context) => {
  const doubles: Doubles = context.doubles;
  doubles.advance("10m");
});
