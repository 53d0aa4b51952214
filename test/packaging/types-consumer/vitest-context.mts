// The test context of `infra-doubles/vitest` as docs/guides/run-tests-concurrently.md shows it, in an
// ES module: `useDoubles()` puts each test's doubles in its context (`({ doubles }) => ...`), typed by
// the entry's `declare module "vitest"` augmentation of `TestContext` (and `Matchers`). Type-checked
// against the built package by test/packaging/declarations.test.ts and by .ci/run's consumer type
// check (vitest 4 and 3.2, the peer range's ends).
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
