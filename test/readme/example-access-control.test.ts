/** The README's access-control example, exactly as README.md shows it (the readme-in-step test compares them). */
import { expect, it } from "vitest";
import { createDoubles } from "../../src/index.js";

it("refuses a token once its TTL has passed", async () => {
  const doubles = createDoubles({ seed: 1 });
  using _nock = doubles.intercept();
  const base = "https://access-control.test/v1";           // doubles.baseUrls().accessControl.api
  const root = doubles.accessControl.bootstrapToken.secretId;
  const created = await fetch(`${base}/acl/token`, {
    method: "PUT",
    headers: { "X-Acl-Token": root },
    body: JSON.stringify({ Description: "ci", ExpirationTTL: "5m" }),
  });
  const { SecretID } = (await created.json()) as { SecretID: string };
  doubles.advance("5m");                                   // ExpirationTime reached: revoked
  const self = await fetch(`${base}/acl/token/self`, { headers: { "X-Acl-Token": SecretID } });
  expect([self.status, await self.text()]).toEqual([403, "ACL not found"]);
});
