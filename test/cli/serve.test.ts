import { createServer } from "node:net";
import { describe, expect, it } from "vitest";
import { USAGE } from "../../src/cli/args.js";
import { EXIT_USAGE } from "../../src/cli/main.js";
import { devServerBanner, devServerJson, startDevServer } from "../../src/cli/serve.js";
import { ALL_PLUGINS } from "../../src/scenarios/doubles.js";
import { demoPlugin } from "../support/demo-service.js";
import { demoWithControls } from "../interceptors/demo-with-controls.js";
import { launch } from "./launch.js";


describe("infra-doubles serve, in process", () => {
  it("prints exactly one JSON line with the URL and each service's default scenario, then stops cleanly on SIGTERM", async () => {
    const run = launch(["serve", "--port", "0", "--json", "--seed", "7"], { plugins: [demoWithControls] });
    const text = await run.firstLine();
    expect(text.endsWith("\n")).toBe(true);
    expect(text.trimEnd().split("\n")).toHaveLength(1);
    const start = JSON.parse(text) as { url: string; demo: { baseUrl: string; thingId: string; token: string } };
    expect(start.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(start.demo).toEqual({ baseUrl: `${start.url}/demo/api`, thingId: expect.stringMatching(/^thing-/), token: "demo-token" });
    const thing = await fetch(`${start.demo.baseUrl}/things/${start.demo.thingId}`);
    expect(await thing.json()).toMatchObject({ id: start.demo.thingId, name: "default" });
    run.signals.emit("SIGTERM");
    expect(await run.exit).toBe(0);
    await expect(fetch(`${start.url}/_sim/clock`)).rejects.toThrow();
    expect(run.err).toEqual([]);
    expect(run.signals.listenerCount("SIGINT") + run.signals.listenerCount("SIGTERM")).toBe(0);
  });

  it("runs on an advanceable real-time clock whose reset returns to the default scenario", async () => {
    const run = launch(["serve", "--port", "0", "--json"], { plugins: [demoWithControls] });
    const start = JSON.parse(await run.firstLine()) as { url: string; demo: { baseUrl: string; thingId: string } };
    const before = (await (await fetch(`${start.url}/_sim/clock`)).json()) as { epochMs: number; advanceable: boolean };
    expect(before.advanceable).toBe(true);
    expect(Math.abs(before.epochMs - Date.now())).toBeLessThan(60_000);
    const advanced = (await (await fetch(`${start.url}/_sim/clock/advance`, { method: "POST", headers: { "content-type": "application/json" }, body: '{"by":"1h"}' })).json()) as { epochMs: number };
    expect(advanced.epochMs - before.epochMs).toBeGreaterThanOrEqual(3_600_000);
    await fetch(`${start.url}/_sim/demo/things/extra`, { method: "POST", headers: { "content-type": "application/json" } });
    expect(await (await fetch(`${start.url}/_sim/demo/count`)).json()).toEqual({ count: 2 });
    await fetch(`${start.url}/_sim/reset`, { method: "POST", headers: { "content-type": "application/json" } });
    expect(await (await fetch(`${start.url}/_sim/demo/count`)).json()).toEqual({ count: 1 });
    expect((await fetch(`${start.demo.baseUrl}/things/${start.demo.thingId}`)).status).toBe(200);
    run.signals.emit("SIGINT");
    expect(await run.exit).toBe(0);
  });

  it("bound beyond loopback: warns on stderr, generates a control token, shows it in --json, and /_sim/ needs it", async () => {
    const run = launch(["serve", "--port", "0", "--host", "0.0.0.0", "--json"], { plugins: [demoWithControls] });
    const start = JSON.parse(await run.firstLine()) as { url: string; controlToken: string; demo: { baseUrl: string; thingId: string } };
    expect(run.err.join("")).toMatch(/WARNING: listening on 0\.0\.0\.0, beyond this machine.*X-Infra-Doubles-Control-Token/s);
    expect(start.controlToken).toMatch(/^[A-Za-z0-9_-]{32}$/);
    const port = new URL(start.url).port;
    const sim = `http://127.0.0.1:${port}/_sim`;
    expect((await fetch(`${sim}/clock`)).status).toBe(401);
    expect((await fetch(`${sim}/clock`, { headers: { "x-infra-doubles-control-token": start.controlToken } })).status).toBe(200);
    expect((await fetch(`http://127.0.0.1:${port}/demo/api/things/${start.demo.thingId}`)).status).toBe(200);
    run.signals.emit("SIGTERM");
    expect(await run.exit).toBe(0);
  });

  it("shows a given control token and a curl example with it in the banner; loopback without one warns nothing", async () => {
    const run = launch(["serve", "--port", "0", "--control-token", "my-token", "--allowed-host", "dev.lan"], { plugins: [demoWithControls] });
    const banner = await run.firstLine();
    const url = /listening on (\S+)/.exec(banner)?.[1] ?? "";
    expect(banner).toContain("control token  my-token");
    expect(banner).toContain(`curl -H 'X-Infra-Doubles-Control-Token: my-token' ${url}/_sim/clock`);
    expect(run.err).toEqual([]);
    expect((await fetch(`${url}/_sim/clock`)).status).toBe(401);
    expect((await fetch(`${url}/_sim/clock`, { headers: { "x-infra-doubles-control-token": "my-token" } })).status).toBe(200);
    run.signals.emit("SIGTERM");
    expect(await run.exit).toBe(0);
    const plain = launch(["serve", "--port", "0", "--json"], { plugins: [demoWithControls] });
    expect(JSON.parse(await plain.firstLine())).not.toHaveProperty("controlToken");
    expect(plain.err).toEqual([]);
    plain.signals.emit("SIGTERM");
    await plain.exit;
  });

  it("gives the same ids for the same seed", async () => {
    const ids: string[] = [];
    for (const seed of ["3", "3", "4"]) {
      const run = launch(["serve", "--port", "0", "--json", "--seed", seed], { plugins: [demoWithControls] });
      ids.push((JSON.parse(await run.firstLine()) as { demo: { thingId: string } }).demo.thingId);
      run.signals.emit("SIGTERM");
      await run.exit;
    }
    expect(ids[0]).toBe(ids[1]);
    expect(ids[2]).not.toBe(ids[0]);
  });

  it("prints a human banner with the URL, each service's base URL and credentials, and the control API", async () => {
    const run = launch(["serve", "--port", "0"], { plugins: [demoWithControls, { ...demoPlugin, key: "plain", definition: { ...demoPlugin.definition, name: "demo2" }, http: { ...demoPlugin.http, name: "demo2" }, serverBases: (o) => ({ api: `${o}/plain/api` }) }] });
    const banner = await run.firstLine();
    const url = /listening on (http:\/\/\S+)/.exec(banner)?.[1] ?? "";
    expect(banner).toContain(`infra-doubles dev server listening on ${url}\n`);
    expect(banner).toMatch(new RegExp(`\\ndemo\\n  baseUrl  ${url}/demo/api\\n  thingId  thing-\\w+\\n  token    demo-token\\n`));
    expect(banner).toContain(`\nplain\n  bases  {"api":"${url}/plain/api"}\n`);
    expect(banner).toContain(`POST ${url}/_sim/clock/advance`);
    expect(banner).toContain("Ctrl+C");
    run.signals.emit("SIGTERM");
    expect(await run.exit).toBe(0);
  });

  it("prints usage on stdout with exit code 0 for --help", async () => {
    for (const argv of [["--help"], ["serve", "--help"], ["-h"]]) {
      const run = launch(argv);
      expect(await run.exit, argv.join(" ")).toBe(0);
      expect(run.err).toEqual([]);
      expect(run.out.join("")).toBe(USAGE);
    }
  });

  it("prints usage on stderr with exit code 2 for bad arguments", async () => {
    for (const argv of [["serve", "--nope"], ["serve", "--port", "x"], [], ["launch"]]) {
      const run = launch(argv);
      expect(await run.exit, argv.join(" ")).toBe(EXIT_USAGE);
      expect(run.out).toEqual([]);
      expect(run.err.join("")).toContain(USAGE);
    }
    const bad = launch(["serve", "--nope"]);
    await bad.exit;
    expect(bad.err[0]).toMatch(/^infra-doubles: .*nope/);
  });

  it("exits with code 1 and a message when the port is taken", async () => {
    const blocker = createServer();
    await new Promise<void>((resolve) => blocker.listen(0, "127.0.0.1", resolve));
    const port = (blocker.address() as { port: number }).port;
    const run = launch(["serve", "--port", String(port)], { plugins: [demoPlugin] });
    expect(await run.exit).toBe(1);
    expect(run.err.join("")).toMatch(new RegExp(`cannot start the server on 127\\.0\\.0\\.1:${port}: .*EADDRINUSE`));
    await new Promise((resolve) => blocker.close(resolve));
  });

  it("serves every registered service by default and prints its default scenario under its key", async () => {
    const dev = await startDevServer({ port: 0 });
    try {
      expect(Object.keys(dev.services)).toEqual(ALL_PLUGINS.map((p) => p.key));
      for (const plugin of ALL_PLUGINS) {
        const expected = plugin.defaultScenario ? expect.any(Object) : { bases: plugin.serverBases(dev.url) };
        expect(dev.services[plugin.key]).toEqual(expected);
      }
      expect(JSON.parse(devServerJson(dev))).toEqual({ url: dev.url, ...dev.services });
      expect(devServerBanner(dev)).toContain(dev.url);
      expect((await (await fetch(`${dev.url}/_sim/clock`)).json()) as object).toMatchObject({ advanceable: true });
    } finally {
      await dev.close();
    }
  });

  it("serves ready-made doubles as they are", async () => {
    const { DoublesCore } = await import("../../src/scenarios/doubles-core.js");
    const doubles = new DoublesCore([demoWithControls], { clock: "manual", start: "2030-01-01T00:00:00Z" });
    await using dev = await startDevServer({ port: 0, doubles });
    expect(dev.doubles).toBe(doubles);
    expect(await (await fetch(`${dev.url}/_sim/clock`)).json()).toMatchObject({ now: "2030-01-01T00:00:00.000Z" });
  });
});
