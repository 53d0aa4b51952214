/** The README's secrets example, exactly as README.md shows it (the readme-in-step test compares them). */
import { expect, it } from "vitest";
import { createDoubles } from "../../src/index.js";

it("sees a sealed node, then an unsealed one", async () => {
  const doubles = createDoubles({ seed: 1 });
  using _nock = doubles.intercept();
  const health = "https://secrets.test/v1/sys/health";    // doubles.baseUrls().secrets.api
  doubles.secrets.setNodeState("sealed");                 // or "standby", "performance-standby", ...
  const sealed = await fetch(health);
  expect(sealed.status).toBe(503);
  expect(((await sealed.json()) as { sealed: boolean }).sealed).toBe(true);
  doubles.secrets.setNodeState("active");
  expect((await fetch(health)).status).toBe(200);
});
