/**
 * Every world the fuzz's requests make (the fuzz fixture world: every service with a few of each
 * resource, tokens of every class, then valid and broken requests of every route) saves and loads
 * byte for byte: no world the services themselves build is refused as inconsistent.
 */
import { expect, it } from "vitest";
import { createDoubles } from "../../../src/scenarios/doubles.js";
import { exportState, importState, stateText } from "../../../src/scenarios/state/document.js";
import { runFuzz } from "../../fuzz/harness/run.js";
import { directHandler } from "../../fuzz/harness/transports.js";
import { buildWorld } from "../../fuzz/harness/world.js";

it("saves and loads every world the fuzz makes, byte for byte", async () => {
  const world = await buildWorld(1);
  const fresh = createDoubles();
  const problems: string[] = [];
  let sent = 0;
  let checked = 0;
  const check = (): void => {
    const text = stateText(exportState(world.doubles));
    try {
      importState(fresh, JSON.parse(text));
      const again = stateText(exportState(fresh));
      if (again !== text) problems.push(`after request ${sent}: the loaded world saves to other bytes`);
    } catch (error) {
      problems.push(`after request ${sent}: ${(error as Error).message}`);
    }
    checked++;
  };
  check();
  await runFuzz({
    seed: 26,
    start: 0,
    count: 400,
    world,
    transport: directHandler(world.doubles),
    profile: "portable",
    afterEach: () => {
      if (++sent % 10 === 0) check();
    },
  });
  expect(problems.slice(0, 5)).toEqual([]);
  expect(checked).toBeGreaterThan(30);
}, 120_000);
