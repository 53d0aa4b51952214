/**
 * State document rows (`npm run bench -- state`, see bench/README.md; issue 26 item 2): saving and
 * loading the dev server's default world, against the kernel's own snapshot as JSON (the floor: the
 * same data, without the service keys, the byte encoding, the schema and the consistency checks).
 * Shown, not judged: the issue sets no target for these.
 */
import { createDoubles, type Doubles } from "../src/scenarios/doubles.js";
import { exportState, importState, parseStateText, stateText } from "../src/scenarios/state/document.js";
import type { SimulatorSnapshot } from "../src/simulator/kernel/simulator.js";
import { row } from "./table.js";

/** Fresh doubles holding the dev server's default scenario of every service. */
function devWorld(): Doubles {
  const doubles = createDoubles({ clock: "manual" });
  for (const plugin of doubles.registeredPlugins) plugin.defaultScenario?.(doubles.controlsOf(plugin.key), plugin.serverBases("http://127.0.0.1:8080"));
  return doubles;
}

row({
  name: "save the dev world (exportState + stateText)",
  clock: "cpu",
  setup: () => {
    const doubles = devWorld();
    return {
      figure: { label: "exportState + stateText", run: () => stateText(exportState(doubles)) },
      anchor: { label: "JSON.stringify(sim.snapshot())", run: () => JSON.stringify(doubles.sim.snapshot()) },
    };
  },
});

row({
  name: "load the dev world (parse + importState: schema, checks, restore)",
  clock: "cpu",
  setup: () => {
    const source = devWorld();
    const text = stateText(exportState(source));
    const snapshotText = JSON.stringify(source.sim.snapshot());
    const target = devWorld();
    return {
      figure: { label: "parse + importState", run: () => importState(target, parseStateText(text)) },
      anchor: { label: "JSON.parse + sim.restore", run: () => target.sim.restore(JSON.parse(snapshotText) as SimulatorSnapshot, { rewind: true }) },
    };
  },
});
