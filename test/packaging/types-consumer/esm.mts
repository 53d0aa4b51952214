// The ES module side of mixed-resolution.cts: every declaration an ES module consumer reads is
// shared with the CommonJS ones, yet the types of msw, fast-check and vitest that the entries use
// are those an ES module gets (a consumer passes `mswHandlers()` to its own msw, `createRunBody()`
// to its own fast-check, and the vitest entry's matchers augment its own vitest).
import { createDoubles, type Doubles } from "infra-doubles";
import coverageSetup from "infra-doubles/coverage";
import { mswHandlers } from "infra-doubles/msw";
import { ManualClock } from "infra-doubles/simulator";
import { createRunBody } from "infra-doubles/testing";
import { useDoubles } from "infra-doubles/vitest";
import fc from "fast-check";
import { setupServer } from "msw/node";
import { expect, test } from "vitest";

const doubles: Doubles = createDoubles({ seed: 1, clock: new ManualClock() });
export const server = setupServer(...mswHandlers(doubles));
export const property = fc.property(createRunBody({ workspaceId: "ws-1" }), (body) => body !== undefined);
export const setup: () => unknown = coverageSetup;
const current = useDoubles();
test("the matchers augment vitest's Assertion", () => {
  expect(current()).toHaveNoUnmatchedRequests();
});
