/**
 * Replay bundles through every transport: a bundle written by `doubles.bundle()` after a session of
 * requests and control actions (fixtures, faults, advances, a reset) replays on fresh doubles with
 * every answer byte-identical; an edited bundle (a changed fake) reports the first request that
 * differs; `until` leaves the world before a request; `diff` names the state a request changed.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { configurationArchive } from "../../../src/index.js";
import { readBundle, type Bundle, type BundleRequest } from "../../../src/scenarios/bundles/bundle.js";
import { replayBundle } from "../../../src/scenarios/bundles/replay.js";
import { encodeValue, restoreEvent } from "../../../src/scenarios/bundles/recorder.js";
import { createDoubles, type Doubles } from "../../../src/scenarios/doubles.js";
import { exportState, stateText } from "../../../src/scenarios/state/document.js";
import { describeEachTransport, type StartedTransport } from "../../support/transports.js";

const dir = mkdtempSync(join(tmpdir(), "bundles-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** A session touching every kind of event: fixtures, a fault, time, binary upload, a reset, a 404. */
async function session(t: StartedTransport<Doubles>): Promise<void> {
  const { doubles } = t;
  const runs = doubles.runs;
  const org = runs.addOrganization("acme");
  const ws = runs.addWorkspace(org, { name: "prod" });
  const user = runs.addUser({ username: "alice", permissions: { [ws.id]: "admin" } });
  const headers = { authorization: `Bearer ${runs.issueUserToken(user.id)}`, "content-type": "application/vnd.api+json" };
  const api = t.base("runs");
  const version = await fetch(`${api}/workspaces/${ws.id}/configuration-versions`, {
    method: "POST",
    headers,
    body: JSON.stringify({ data: { type: "configuration-versions", attributes: { "auto-queue-runs": false } } }),
  });
  const upload = ((await version.json()) as { data: { attributes: { "upload-url": string } } }).data.attributes["upload-url"];
  // The upload URL names the archive host of this transport (the server's origin, or nock's).
  const uploadUrl = t.transport === "server" ? new URL(new URL(upload).pathname, api).href : upload;
  expect((await fetch(uploadUrl, { method: "PUT", body: configurationArchive() })).status).toBe(200);
  doubles.faults.add({ service: "runs", route: "POST /runs", answer: "rate-limited", retryAfter: "2s", times: 1 });
  const create = (): Promise<Response> =>
    fetch(`${api}/runs`, { method: "POST", headers, body: JSON.stringify({ data: { type: "runs", relationships: { workspace: { data: { type: "workspaces", id: ws.id } } } } }) });
  expect((await create()).status).toBe(429);
  doubles.advance("2s");
  const created = await create();
  expect(created.status).toBe(201);
  const id = ((await created.json()) as { data: { id: string } }).data.id;
  doubles.advance("10m");
  await (await fetch(`${api}/runs/${id}`, { headers })).text();
  const secrets = t.base("secrets");
  await (await fetch(`${secrets}/sys/health`)).text();
  doubles.secrets.setNodeState("sealed");
  await (await fetch(`${secrets}/sys/health`)).text();
  await (await fetch(`${api}/no-such-route`, { headers })).text();
}

describeEachTransport("replay bundles", (t) => {
  it("a bundle replays on fresh doubles with every answer byte-identical", async () => {
    const started = await t.startWith(createDoubles({ seed: 7 }));
    await session(started);
    const path = started.doubles.bundle(join(dir, `${t.name}.json`));
    const bundle = readBundle(path);
    expect(bundle).toMatchObject({ format: "infra-doubles/bundle", version: 1, seed: 7, start: "2024-01-01T00:00:00.000Z", clock: "manual" });
    const requests = bundle.events.filter((e): e is BundleRequest => e.kind === "request");
    expect(requests.length).toBe(8);
    expect(requests.map((r) => r.response.status)).toEqual([201, 200, 429, 201, 200, 200, 503, 404]);
    // The archive went through as bytes (gzip is not UTF-8): base64 in the file.
    expect("base64" in (requests[1]?.body ?? {})).toBe(true);
    expect(bundle.events.map((e) => e.kind)).toContain("fault.add");
    const result = await replayBundle(bundle);
    try {
      expect(result.mismatch?.report).toBeUndefined();
      expect(result.replayed).toBe(8);
      expect(result.warnings).toEqual([]);
      // The replay recorded the same requests and answers: the same bundle, byte for byte.
      expect(JSON.stringify(result.doubles.bundleDocument().events.filter((e) => e.kind === "request"))).toBe(JSON.stringify(requests));
    } finally {
      await result.doubles.close();
    }
  });
});

describe("replaying an edited bundle", () => {
  async function recorded(): Promise<Bundle> {
    const doubles = createDoubles({ seed: 3 });
    using _nock = doubles.intercept({ transport: "interceptors" });
    await session({ doubles, transport: "interceptors", base: (service) => doubles.baseUrls()[service]?.api ?? "" });
    await doubles.close();
    return doubles.bundleDocument();
  }

  it("reports the first request whose answer differs, with status, headers and the body's first differing byte and JSON path", async () => {
    const bundle = await recorded();
    const edited = JSON.parse(JSON.stringify(bundle)) as { events: BundleRequest[] };
    const fifth = edited.events.filter((e) => e.kind === "request")[4] as { response: { body: { text: string }; headers: Record<string, string> } };
    const body = JSON.parse(fifth.response.body.text) as { data: { attributes: { status: string } } };
    const status = body.data.attributes.status;
    body.data.attributes.status = "changed-by-hand";
    fifth.response.body.text = JSON.stringify(body);
    const path = join(dir, "edited.json");
    writeFileSync(path, JSON.stringify(edited));
    const result = await replayBundle(readBundle(path));
    await result.doubles.close();
    expect(result.mismatch?.request.n).toBe(5);
    expect(result.mismatch?.report).toContain("request 5: GET https://app.run-orchestration.test/api/v2/runs/");
    expect(result.mismatch?.report).toContain(`/data/attributes/status: "changed-by-hand" -> ${JSON.stringify(status)}`);
    expect(result.mismatch?.report).toMatch(/first difference at byte \d+ \(line 1, column \d+\)/);
  });

  it("until leaves the world before request N; diff names the state request N changed", async () => {
    const bundle = await recorded();
    const before = await replayBundle(bundle, { until: 4 });
    expect(before.stoppedBefore?.method).toBe("POST");
    expect(before.doubles.runs.runsOf(before.doubles.runs.workspaceId("acme/prod"))).toEqual([]);
    await before.doubles.close();
    const diff = await replayBundle(bundle, { diff: 4 });
    await diff.doubles.close();
    const paths = diff.diff?.changes.map((c) => c.path) ?? [];
    expect(paths.some((p) => /^\/services\/runs\/.*run-/.test(p))).toBe(true);
    await expect(replayBundle(bundle, { until: 99 })).rejects.toThrow("the bundle has requests 1 to 8");
  });

  it("refuses a bundle when more happened than it recorded, and doubles created with bundle: false", async () => {
    const doubles = createDoubles({ bundle: { limit: 2 } });
    for (let i = 0; i < 3; i++) doubles.runs.addOrganization(`org-${i}`);
    expect(() => doubles.bundleDocument()).toThrow("3 requests and control actions happened, more than the 2 recorded");
    expect(() => createDoubles({ bundle: false }).bundleDocument()).toThrow("bundle: false");
    expect(() => createDoubles({ bundle: { limt: 1 } as never })).toThrow('did you mean "limit"');
    expect(readFileSync(join(dir, "edited.json"), "utf8")).toContain("infra-doubles/bundle");
  });
});

describe("infra-doubles replay (the CLI)", () => {
  const io = () => {
    let out = "";
    let err = "";
    return {
      stdout: { write: (text: string) => (out += text) },
      stderr: { write: (text: string) => (err += text) },
      signals: { once: () => undefined, off: () => undefined },
      out: () => out,
      err: () => err,
    };
  };

  it("exits 0 when every answer is identical, 1 with the difference when one differs, 2 for a file that is no bundle of this version", async () => {
    const { runCli } = await import("../../../src/cli/main.js");
    const doubles = createDoubles({ seed: 2 });
    using _nock = doubles.intercept({ transport: "interceptors" });
    await session({ doubles, transport: "interceptors", base: (service) => doubles.baseUrls()[service]?.api ?? "" });
    await doubles.close();
    const path = doubles.bundle(join(dir, "cli", "same.json"));
    const same = io();
    expect(await runCli(["replay", path], same)).toBe(0);
    expect(same.out()).toContain("replayed 8 requests: every answer identical, byte for byte");
    const edited = JSON.parse(readFileSync(path, "utf8")) as { events: BundleRequest[] };
    const health = edited.events.filter((e) => e.kind === "request")[5] as { response: { status: number } };
    health.response.status = 501;
    writeFileSync(join(dir, "cli", "edited.json"), JSON.stringify(edited));
    const differs = io();
    expect(await runCli(["replay", join(dir, "cli", "edited.json")], differs)).toBe(1);
    expect(differs.out()).toContain("request 6: GET https://secrets.test/v1/sys/health at 2024-01-01T00:10:02.000Z was answered differently (recorded -> replayed)\n  status: 501 -> 200");
    writeFileSync(join(dir, "cli", "v2.json"), JSON.stringify({ ...edited, version: 2 }));
    const newer = io();
    expect(await runCli(["replay", join(dir, "cli", "v2.json")], newer)).toBe(2);
    expect(newer.err()).toContain("is a bundle of version 2; this infra-doubles reads version 1");
    const missing = io();
    expect(await runCli(["replay", join(dir, "cli", "missing.json")], missing)).toBe(2);
    expect(missing.err()).toContain("cannot read");
    const beyond = io();
    expect(await runCli(["replay", path, "--diff", "9"], beyond)).toBe(2);
    expect(beyond.err()).toContain("--diff 9: the bundle has requests 1 to 8");
  });
});

describe("a bundle of a server driven through its control API", () => {
  it("records /_sim/ fixtures, documents, faults, advances and resets, and replays identically", async () => {
    const doubles = createDoubles({ seed: 4 });
    const server = await doubles.listen({ setup: () => void doubles.secrets.setNodeState("standby") });
    try {
      const post = (path: string, body: unknown) => fetch(`${server.url}/_sim${path}`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) });
      const health = async () => (await fetch(`${server.url}/v1/sys/health`)).status;
      expect((await post("/scenario", { runs: { organizations: [{ name: "acme" }] } })).status).toBe(201);
      expect(await health()).toBe(429);
      expect((await post("/faults", { service: "secrets", answer: "sealed", times: 1 })).status).toBe(201);
      expect(await health()).toBe(503);
      expect((await post("/clock/advance", { by: "1m" })).status).toBe(200);
      doubles.secrets.setNodeState("active");
      expect(await health()).toBe(200);
      expect((await post("/reset", {})).status).toBe(200);
      expect(await health()).toBe(429);
      doubles.load({ runs: { organizations: [{ name: "beta" }] } });
      expect(await health()).toBe(429);
    } finally {
      await server.close();
    }
    const bundle = doubles.bundleDocument();
    expect(bundle.events.map((e) => e.kind)).toEqual(["call", "mark", "serve", "call", "request", "fault.add", "request", "call", "request", "reset", "request", "load", "request"]);
    expect(bundle.events.filter((e) => e.kind === "request").map((e) => e.epochMs - Date.parse(bundle.start))).toEqual([0, 0, 60_000, 0, 0]);
    const result = await replayBundle(bundle);
    await result.doubles.close();
    expect(result.mismatch?.report).toBeUndefined();
    expect(result.replayed).toBe(5);
  });
});

describe("a bundle of a world a state document was loaded into", () => {
  it("records PUT /_sim/state and createDoubles({ state }) as one event each, and replays identically", async () => {
    // A saved world: a secrets mount tuned and time moved on, so it differs from a fresh one.
    const source = createDoubles({ seed: 9 });
    source.advance("1h");
    source.secrets.setNodeState("standby");
    const saved = exportState(source);
    await source.close();

    const doubles = createDoubles({ seed: 4, state: saved });
    const server = await doubles.listen();
    try {
      const health = async () => (await fetch(`${server.url}/v1/sys/health`)).status;
      expect(await health()).toBe(429);
      const other = createDoubles({ seed: 5 });
      const put = await fetch(`${server.url}/_sim/state`, { method: "PUT", headers: { "content-type": "application/json" }, body: stateText(exportState(other)) });
      await other.close();
      expect(put.status).toBe(200);
      expect(await health()).toBe(200);
    } finally {
      await server.close();
    }
    const bundle = doubles.bundleDocument();
    expect(bundle.events.map((e) => e.kind)).toEqual(["state", "mark", "mark", "serve", "request", "state", "request"]);
    const result = await replayBundle(bundle);
    await result.doubles.close();
    expect(result.mismatch?.report).toBeUndefined();
    expect(result.replayed).toBe(2);
  });
});

describe("encodeValue", () => {
  it("records a value that contains itself, or nests too deep, as unrecorded with a problem (no stack overflow)", () => {
    const cyclic: Record<string, unknown> = { name: "a" };
    cyclic.self = cyclic;
    const problems: string[] = [];
    expect(encodeValue(cyclic, "arg", problems)).toEqual({ name: "a", self: { $unrecorded: "cycle" } });
    expect(problems).toEqual(["arg.self: a value that contains itself cannot be recorded"]);
    let deep: unknown = 1;
    for (let i = 0; i < 100_000; i++) deep = [deep];
    const deepProblems: string[] = [];
    expect(() => encodeValue(deep, "arg", deepProblems)).not.toThrow();
    expect(deepProblems).toHaveLength(1);
    // The same object twice side by side is no cycle.
    const shared = { x: 1 };
    expect(encodeValue([shared, shared], "arg", [])).toEqual([{ x: 1 }, { x: 1 }]);
  });
});

describe("a restored snapshot in a bundle", () => {
  it("is written as the snapshot stood when it was restored, and replays identically", async () => {
    const doubles = createDoubles({ seed: 6 });
    const acme = doubles.runs.addOrganization("acme");
    const saved = doubles.snapshot();
    doubles.runs.addWorkspace(acme, { name: "later" });
    doubles.restore(saved);
    const event = restoreEvent(0, saved as unknown as Record<string, unknown>);
    const server = await doubles.listen();
    try {
      expect((await fetch(`${server.url}/v1/sys/health`)).status).toBe(200);
    } finally {
      await server.close();
    }
    const bundle = doubles.bundleDocument();
    const restored = bundle.events.find((e) => e.kind === "restore") as { snapshot: unknown } | undefined;
    expect(restored?.snapshot).toEqual(encodeValue(saved, "restore", []));
    expect(event.kind === "restore" && event.snapshot).toEqual(encodeValue(saved, "restore", []));
    const result = await replayBundle(bundle);
    expect(JSON.stringify(result.doubles.snapshot().services)).toBe(JSON.stringify(doubles.snapshot().services));
    await result.doubles.close();
    expect(result.mismatch?.report).toBeUndefined();
  });
});
