/**
 * Fuzz your own client: one property test drives `applyLatest` through any sequence of the run
 * orchestration service's commands (runs created, configuration uploaded, outcomes scripted,
 * actions taken, time passing) and checks it ends with the run applied, a plain outcome, or a
 * clear `ReleaseError`. The same property with the planted bug on must FAIL, shrunk to a two-step
 * story, so it cannot pass silently. The guide (docs/guides/fuzz-your-own-client.md) shows the
 * marked test verbatim; the last test here checks that it does.
 */
import { readFileSync } from "node:fs";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { createDoubles } from "../../src/index.js";
import { handlerFetch, runsCommands, runsModelSetup, type RunsWorld } from "../../src/testing/index.js";
import { applyLatest, ReleaseError } from "./release-client.js";

describe("applyLatest, fuzzed with infra-doubles/testing", () => {
  // guide:start
  it("applyLatest ends with the run applied or a clear error", async () => {
    const client = {
      name: "apply latest",
      act: async (w: RunsWorld) => {
        const outcome = await applyLatest({ baseUrl: w.urls.runs.api, token: w.token, workspaceId: w.workspaceId, fetch: w.send }).catch((e: unknown) => e);
        if (outcome instanceof Error && !(outcome instanceof ReleaseError)) throw outcome;
      },
    };
    await fc.assert(fc.asyncProperty(runsCommands({ client }), async (commands) => {
      const doubles = createDoubles({ seed: 1 });
      await fc.asyncModelRun(runsModelSetup({ doubles, send: handlerFetch(doubles) }), commands);
    }), { numRuns: 40 });
  });
  // guide:end

  it("with the planted bug, fast-check finds it and shrinks it to a two-step story", async () => {
    const client = {
      name: "apply latest",
      act: async (w: RunsWorld) => {
        const outcome = await applyLatest({ baseUrl: w.urls.runs.api, token: w.token, workspaceId: w.workspaceId, fetch: w.send }, { checkConfirmable: false }).catch((e: unknown) => e);
        if (outcome instanceof Error && !(outcome instanceof ReleaseError)) throw outcome;
      },
    };
    const result = await fc.check(
      fc.asyncProperty(runsCommands({ client }), async (commands) => {
        const doubles = createDoubles({ seed: 1 });
        await fc.asyncModelRun(runsModelSetup({ doubles, send: handlerFetch(doubles) }), commands);
      }),
      { seed: 42 },
    );
    expect(result.failed).toBe(true);
    expect(String(result.counterexample?.[0]).replace(/ \/\*replayPath=.*\*\/$/, "")).toBe("create run,apply latest (your client)");
    expect(String(result.errorInstance)).toBe("Error: HTTP 409");
  });

  it("the guide shows the marked test verbatim, in under 20 lines with its imports", () => {
    const guide = readFileSync(new URL("../../docs/guides/fuzz-your-own-client.md", import.meta.url), "utf8");
    const block = /## The whole test\n\n(?:<!--[^\n]*-->\n)?```ts\n([\s\S]*?)```/.exec(guide)?.[1] ?? "";
    const source = readFileSync(new URL("./release-client.test.ts", import.meta.url), "utf8");
    const marked = /\/\/ guide:start\n([\s\S]*?)\s*\/\/ guide:end/.exec(source)?.[1] ?? "";
    const unindented = marked.split("\n").map((line) => line.replace(/^ {2}/, "")).join("\n");
    const [imports = "", test = ""] = block.split(/\n\n/);
    expect(test.trim()).toBe(unindented.trim());
    for (const line of imports.split("\n")) {
      if (line.endsWith('from "vitest";')) expect(source).toMatch(/^import \{[^}]*\bit\b[^}]*\} from "vitest";$/m);
      else expect(source).toContain(line.replace('"infra-doubles/testing"', '"../../src/testing/index.js"').replace('"infra-doubles"', '"../../src/index.js"'));
    }
    expect(block.trim().split("\n").length).toBeLessThan(20);
  });
});
