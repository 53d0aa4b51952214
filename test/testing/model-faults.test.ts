/**
 * Faults inside the testing kit's model commands (issue 13 leftovers, item 3): each model has a
 * command that injects one of the service's faults (`doubles.faults`) into its own request, before
 * or after the change is kept. The models' invariants hold across them (a faulted request changed
 * nothing; a committed-then-failed one did), and they catch a client that blindly retries a
 * faulted request: the retry is the change the model did not expect.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { createDoubles, type Doubles } from "../../src/index.js";
import { handlerFetch, type FetchLike } from "../../src/testing/http.js";
import { runsCommands, runsModelSetup } from "../../src/testing/models/runs-model.js";
import { secretsCommands, secretsModelSetup } from "../../src/testing/models/secrets-model.js";
import { tokensCommands, tokensModelSetup } from "../../src/testing/models/tokens-model.js";

/** A `send` that retries once, blindly, whatever failed (a 4xx/5xx answer or a dropped connection) on `matches`. */
function blindRetry(send: FetchLike, matches: (method: string, url: string) => boolean): FetchLike {
  return async (url, init) => {
    const method = (init?.method ?? "GET").toUpperCase();
    if (!matches(method, url)) return send(url, init);
    const first = await send(url, init).catch(() => undefined);
    if (first !== undefined && first.status < 400) return first;
    await first?.text();
    return send(url, init);
  };
}

/** How many requests a fault was applied to (the journal names the fault). */
const faultedRequests = (doubles: Doubles): number => doubles.journal.entries.filter((e) => e.fault !== undefined).length;

const MODELS = [
  {
    name: "runs",
    commands: () => runsCommands({ maxCommands: 12 }),
    setup: runsModelSetup,
    retried: (method: string, url: string) => method === "POST" && url.endsWith("/runs"),
    story: /create run.* fails: /,
  },
  {
    name: "tokens",
    commands: () => tokensCommands({ maxCommands: 12 }),
    setup: tokensModelSetup,
    retried: (method: string, url: string) => method === "PUT" && url.endsWith("/acl/token"),
    story: /create token.* fails: /,
  },
  {
    name: "secrets",
    commands: () => secretsCommands({ maxCommands: 12 }),
    setup: secretsModelSetup,
    retried: (method: string, url: string) => method === "PUT" && url.endsWith("/sys/leases/renew"),
    story: /renew lease .* fails: /,
  },
] as const;

describe("testing kit: faults inside model commands", () => {
  for (const model of MODELS) {
    it(`${model.name}: the invariants hold across faulted commands, committed or not, and the faults are really applied`, async () => {
      let faulted = 0;
      const stories: string[] = [];
      await fc.assert(
        fc.asyncProperty(model.commands(), async (cmds) => {
          const doubles = createDoubles({ seed: 41 });
          await fc.asyncModelRun(model.setup({ doubles, send: handlerFetch(doubles) }) as never, cmds as never);
          faulted += faultedRequests(doubles);
          stories.push(String(cmds));
        }),
        { numRuns: 30, seed: 7 },
      );
      expect(faulted).toBeGreaterThan(0);
      expect(stories.some((s) => model.story.test(s) && s.includes("after commit"))).toBe(true);
      expect(stories.some((s) => model.story.test(s) && /fails: [a-z-]+(?:,|$)/.test(s))).toBe(true);
    });

    it(`${model.name}: a client that blindly retries a faulted request breaks the model, and the shrunk story names the faulted command`, async () => {
      const failure = await fc
        .assert(
          fc.asyncProperty(model.commands(), async (cmds) => {
            const doubles = createDoubles({ seed: 42 });
            await fc.asyncModelRun(model.setup({ doubles, send: blindRetry(handlerFetch(doubles), model.retried) }) as never, cmds as never);
          }),
          { numRuns: 60, seed: 8 },
        )
        .then(
          () => undefined,
          (error: unknown) => error as Error,
        );
      expect(failure, "the model must notice the retried request's change").toBeInstanceOf(Error);
      expect(failure?.message).toMatch(/Counterexample: \[/);
      expect(failure?.message).toMatch(model.story);
    });
  }
});

describe("testing kit: handlerFetch and dropped connections", () => {
  it("rejects as Node's fetch does (TypeError: fetch failed, cause ECONNRESET / UND_ERR_SOCKET), not with a status-0 Response", async () => {
    const doubles = createDoubles({ seed: 43 });
    const send = handlerFetch(doubles);
    const url = `${doubles.baseUrls().secrets.api}/sys/health`;
    for (const [connection, code] of [
      ["reset", "ECONNRESET"],
      ["hang-up", "UND_ERR_SOCKET"],
    ] as const) {
      doubles.faults.add({ service: "secrets", connection, times: 1 });
      const failure = await send(url).then(
        () => undefined,
        (error: unknown) => error as TypeError & { cause?: { code?: string } },
      );
      expect(failure).toBeInstanceOf(TypeError);
      expect(failure?.message).toBe("fetch failed");
      expect(failure?.cause?.code).toBe(code);
      expect((await send(url)).status).toBe(200);
    }
  });
});
