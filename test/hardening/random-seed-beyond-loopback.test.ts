/**
 * `serve --host 0.0.0.0` without `--seed` draws a random seed and prints it (issue 24, item 10): the
 * default scenario's tokens (the secrets root token among them) are no longer the same on every
 * machine, so a network neighbour cannot guess them. Seed 1 stays the default on loopback, and the
 * printed seed, passed back with `--seed`, gives the same tokens again.
 */
import { EventEmitter } from "node:events";
import { describe, expect, it } from "vitest";
import { runCli, type CliIo } from "../../src/cli/main.js";

/** Starts `infra-doubles <argv>` in process; resolves with its JSON start line and stderr, then stops it. */
async function startLine(argv: string[]): Promise<{ start: { secrets: { rootToken: string } }; err: string }> {
  const out: string[] = [];
  const err: string[] = [];
  const signals = new EventEmitter();
  const io: CliIo = { stdout: { write: (t: string) => out.push(t) }, stderr: { write: (t: string) => err.push(t) }, signals: signals as unknown as CliIo["signals"] };
  const exit = runCli(argv, io);
  for (let i = 0; i < 1000 && out.length === 0; i++) await new Promise((resolve) => setTimeout(resolve, 10));
  signals.emit("SIGTERM");
  expect(await exit).toBe(0);
  return { start: JSON.parse(out.join("")) as { secrets: { rootToken: string } }, err: err.join("") };
}

describe("the seed of serve", () => {
  it("beyond loopback without --seed: a random seed, printed, whose tokens differ from seed 1's and from run to run", async () => {
    const loopback = await startLine(["serve", "--port", "0", "--json"]);
    const seeded1 = await startLine(["serve", "--port", "0", "--json", "--host", "0.0.0.0", "--seed", "1"]);
    expect(seeded1.start.secrets.rootToken).toBe(loopback.start.secrets.rootToken);
    expect(loopback.err).toBe("");
    const first = await startLine(["serve", "--port", "0", "--json", "--host", "0.0.0.0"]);
    const second = await startLine(["serve", "--port", "0", "--json", "--host", "0.0.0.0"]);
    expect(first.start.secrets.rootToken).not.toBe(loopback.start.secrets.rootToken);
    expect(second.start.secrets.rootToken).not.toBe(first.start.secrets.rootToken);
    const drawn = /drew the random seed ([0-9a-f]{32})\b/.exec(first.err)?.[1];
    expect(drawn).toBeDefined();
    expect(seeded1.err).not.toMatch(/drew the random seed/);
    const again = await startLine(["serve", "--port", "0", "--json", "--host", "0.0.0.0", "--seed", drawn ?? ""]);
    expect(again.start.secrets.rootToken).toBe(first.start.secrets.rootToken);
  }, 60_000);
});
