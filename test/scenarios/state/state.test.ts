/**
 * State documents (issue 26 item 2): `GET /_sim/state` downloads the whole world, `PUT /_sim/state`
 * loads one, `doubles.saveState(path)` / `createDoubles({ state })`; the round trip is byte-identical,
 * the loaded world answers (and goes on) as the saved one, and a hand-broken document is refused
 * with its JSON pointer, nothing changed.
 */
/* eslint-disable @typescript-eslint/no-explicit-any -- documents edited by hand, of any shape */
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startDevServer, type DevServer } from "../../../src/cli/serve.js";
import { createDoubles, type Doubles } from "../../../src/scenarios/doubles.js";
import { exportState, importState, stateText, type StateDocument } from "../../../src/scenarios/state/document.js";
import { migrateStateDocument } from "../../../src/scenarios/state/migrate.js";

const json = { "content-type": "application/json" };

interface World {
  readonly dev: DevServer;
  readonly doubles: Doubles;
  readonly runIds: string[];
  readonly runsToken: string;
  readonly rootToken: string;
  readonly leaseId: string;
  readonly aclAccessor: string;
  readonly bootstrap: string;
}

/** The dev server's default world, plus runs in flight, a lease, an expiring ACL token and a fault. */
async function richWorld(): Promise<World> {
  const dev = await startDevServer({ port: 0, clock: "manual" });
  const doubles = dev.doubles as Doubles;
  const { runs } = doubles;
  const org = runs.addOrganization("acme", { costEstimationEnabled: true });
  const ws = runs.addWorkspace(org, { name: "prod" });
  const alice = runs.addUser({ username: "alice", permissions: { [ws.id]: "admin" } });
  const runsToken = runs.issueUserToken(alice.id);
  runs.setDurations({ plan: "2m", apply: "5m" });
  const { runId } = runs.uploadConfiguration(ws.id, { as: alice.id });
  const second = runs.queueRun(ws.id, { as: alice.id });
  doubles.advance("30s");
  const secrets = dev.services.secrets as { rootToken: string };
  const creds = await fetch(`${dev.url}/v1/ssh/creds/otp-role`, { method: "POST", headers: { ...json, "x-secrets-token": secrets.rootToken }, body: JSON.stringify({ ip: "10.0.0.5", username: "web" }) });
  expect(creds.status).toBe(200);
  const leaseId = ((await creds.json()) as { lease_id: string }).lease_id;
  const bootstrap = (dev.services.accessControl as { bootstrapSecretId: string }).bootstrapSecretId;
  const token = await fetch(`${dev.url}/v1/acl/token`, { method: "PUT", headers: { ...json, "x-consul-token": bootstrap }, body: JSON.stringify({ Description: "short", ExpirationTTL: "1h" }) });
  expect(token.status).toBe(200);
  const aclAccessor = ((await token.json()) as { AccessorID: string }).AccessorID;
  doubles.faults.add({ service: "runs", route: "POST /runs/:run_id/actions/apply", answer: "rate-limited", times: 2 });
  return { dev, doubles, runIds: [runId ?? "", second], runsToken, rootToken: secrets.rootToken, leaseId, aclAccessor, bootstrap };
}

/** What a client sees of the world: run statuses, the lease, the ACL token, the clock. */
async function observe(url: string, world: World): Promise<unknown> {
  const runs = [];
  for (const id of world.runIds) {
    const response = await fetch(`${url}/api/v2/runs/${id}`, { headers: { authorization: `Bearer ${world.runsToken}` } });
    runs.push([response.status, ((await response.json()) as { data?: { attributes: { status: string } } }).data?.attributes.status]);
  }
  const lease = await fetch(`${url}/v1/sys/leases/lookup`, { method: "PUT", headers: { ...json, "x-secrets-token": world.rootToken }, body: JSON.stringify({ lease_id: world.leaseId }) });
  const leaseBody = (await lease.json()) as { data?: { expire_time: string; ttl: number } };
  const acl = await fetch(`${url}/v1/acl/token/${world.aclAccessor}`, { headers: { "x-consul-token": world.bootstrap } });
  const aclBody = acl.status === 200 ? ((await acl.json()) as { ExpirationTime: string }).ExpirationTime : acl.status;
  const clock = ((await (await fetch(`${url}/_sim/clock`)).json()) as { epochMs: number }).epochMs;
  return { runs, lease: [lease.status, leaseBody.data?.expire_time, leaseBody.data?.ttl], acl: aclBody, clock };
}

const getState = async (url: string, query = ""): Promise<string> => {
  const response = await fetch(`${url}/_sim/state${query}`);
  expect(response.status).toBe(200);
  return response.text();
};

const putState = (url: string, body: string): Promise<Response> => fetch(`${url}/_sim/state`, { method: "PUT", headers: json, body });

let world: World;
let other: DevServer;
let dir: string;
/** The rich world's document while its runs, lease and ACL token are live. */
let savedText: string;

beforeAll(async () => {
  world = await richWorld();
  savedText = await getState(world.dev.url);
  other = await startDevServer({ port: 0, clock: "manual", seed: 9 });
  dir = mkdtempSync(join(tmpdir(), "infra-doubles-state-"));
}, 60_000);

afterAll(async () => {
  await world.dev.close();
  await other.close();
  rmSync(dir, { recursive: true, force: true });
});

describe("GET /_sim/state and PUT /_sim/state", () => {
  it("downloads a versioned document that loads on another server byte for byte, answering and going on as the saved world", async () => {
    const text = await getState(world.dev.url);
    const doc = JSON.parse(text) as StateDocument;
    expect(Object.keys(doc)).toEqual(["format", "version", "seed", "clock", "ids", "schedule", "blobs", "faults", "services"]);
    expect([doc.format, doc.version]).toEqual(["infra-doubles/state", 1]);
    expect(Object.keys(doc.services)).toEqual(["runs", "accessControl", "secrets"]);
    expect(doc.schedule.moves.length).toBeGreaterThan(2);
    expect(Object.keys(doc.blobs.bytes).length).toBeGreaterThan(0);
    expect(text).toBe(savedText);
    expect(doc.faults.list).toMatchObject([{ id: "fault-1", times: 2, applied: 0 }]);
    const before = await observe(world.dev.url, world);
    expect((before as { runs: [number, string][] }).runs.some(([, status]) => status !== "applied" && status !== "errored")).toBe(true);

    const loaded = await putState(other.url, text);
    expect(loaded.status).toBe(200);
    expect(await loaded.json()).toMatchObject({ loaded: true, epochMs: doc.clock.epochMs });
    expect(await getState(other.url)).toBe(text);
    expect(await observe(other.url, world)).toEqual(before);

    // Both worlds go on the same: timed moves fire, the lease and the ACL token expire.
    for (const url of [world.dev.url, other.url]) await fetch(`${url}/_sim/clock/advance`, { method: "POST", headers: json, body: JSON.stringify({ by: "2h" }) });
    const after = await observe(world.dev.url, world);
    expect(after).not.toEqual(before);
    expect(await observe(other.url, world)).toEqual(after);
    expect(await getState(other.url)).toBe(await getState(world.dev.url));
  });

  it("adds the request journal with ?journal=true", async () => {
    const doc = JSON.parse(await getState(world.dev.url, "?journal=true")) as StateDocument;
    expect(doc.journal?.length).toBeGreaterThan(0);
    expect(doc.journal?.[0]).toMatchObject({ method: "POST", route: "/ssh/creds/:name", status: 200 });
  });

  describe("refuses a hand-broken document with the JSON pointer of the offending value, nothing changed", () => {
    const cases: [string, (doc: Record<string, any>) => void, string | RegExp, RegExp][] = [
      ["a run in a state its table does not have", (doc) => (firstOf(doc.services.runs.runs).status = "exploded"), "/services/runs/runs/{run}/status", /run state/],
      ["a workspace lock held by a missing run", (doc) => (firstOf(doc.services.runs.workspaces, (w) => w.name === "prod").lockedBy = "run-missing"), "/services/runs/workspaces/{ws}/lockedBy", /run "run-missing"/],
      ["a dangling configuration version of a run", (doc) => (firstOf(doc.services.runs.runs).configurationVersionId = "cv-nope"), "/services/runs/runs/{run}/configurationVersionId", /configuration version "cv-nope"/],
      ["an OTP whose lease is missing", (doc) => (doc.services.secrets.leases = {}), "/services/secrets/mounts/ssh/engineState/otps/{otp}/leaseId", /lease/],
      ["a lease whose expiry move is missing", (doc) => (firstOf(doc.services.secrets.leases).moveId = 9999), "/services/secrets/leases/{lease}/moveId", /timed move 9999/],
      ["an ACL token whose SecretID the secret index does not file", (doc) => (doc.services.accessControl.secrets = {}), /^\/services\/accessControl\/tokens\/[^/]+\/secretId$/, /secret index/],
      ["a workspace on an engine version the document does not hold", (doc) => (firstOf(doc.services.runs.workspaces, (w) => w.name === "prod").engineVersion = "0.0.1"), "/services/runs/workspaces/{ws}/engineVersion", /engine version "0.0.1"/],
      ["a binding rule of a missing auth method", (doc) => (doc.services.accessControl.authMethods = {}), /^\/services\/accessControl\/bindingRules\/[^/]+\/authMethod$/, /auth method/],
      ["a clock before a stored time", (doc) => (firstOf(doc.services.runs.runs).createdAt = doc.clock.epochMs + 1000), "/services/runs/runs/{run}/createdAt", /after the document's clock/],
      ["a move due before the clock", (doc) => (doc.schedule.moves[0].due = doc.clock.epochMs - 1), "/schedule/moves/0/due", /would have fired/],
      ["a value of the wrong shape", (doc) => (firstOf(doc.services.runs.runs).pendingMove = "soon"), "/services/runs/runs/{run}/pendingMove", /must be/],
      ["a setting of the wrong type", (doc) => (doc.services.runs.settings.coolOffMs = "10s"), "/services/runs/settings/coolOffMs", /must be number/],
      ["a node state the secrets service does not have", (doc) => (doc.services.secrets.node.state = "asleep"), "/services/secrets/node/state", /must be one of "active"/],
      ["a missing collection", (doc) => delete doc.services.secrets.leases, "/services/secrets", /missing property "leases"/],
      ["an unknown service", (doc) => (doc.services.queues = {}), "/services/queues", /names no service/],
      ["another format", (doc) => (doc.format = "other"), "/format", /infra-doubles\/state/],
      ["a version with no migration (0)", (doc) => (doc.version = 0), "/version", /version 0 cannot be migrated to version 1/],
      ["a newer version (2)", (doc) => (doc.version = 2), "/version", /version 2 is newer than this infra-doubles reads \(version 1\)/],
      ["a bad fault", (doc) => (doc.faults.list[0].answer = "no-such-answer"), "/faults/list/0/answer", /no answer "no-such-answer"/],
    ];
    for (const [name, breakIt, where, message] of cases) {
      it(name, async () => {
        const text = savedText;
        const doc = JSON.parse(text) as Record<string, any>;
        const keys = { run: world.runIds[0] ?? "", ws: "", otp: "", lease: world.leaseId };
        breakIt(doc);
        keys.ws = String(firstOf(doc.services.runs.workspaces, (w) => w.name === "prod")?.id ?? "");
        keys.otp = Object.keys(JSON.parse(text).services.secrets.mounts.ssh.engineState.otps)[0] ?? "";
        const seen = await getState(other.url);
        const response = await putState(other.url, JSON.stringify(doc));
        expect(response.status).toBe(400);
        const body = (await response.json()) as { error: { status: number; code: string; message: string; pointer: string } };
        const pointer = typeof where === "string" ? where.replace(/\{(\w+)\}/g, (_m, k: keyof typeof keys) => keys[k].replace(/~/g, "~0").replace(/\//g, "~1")) : where;
        if (typeof pointer === "string") expect(body.error.pointer).toBe(pointer);
        else expect(body.error.pointer).toMatch(pointer);
        expect(body.error).toMatchObject({ status: 400, code: "invalid" });
        expect(body.error.message).toContain(body.error.pointer);
        expect(body.error.message).toMatch(message);
        expect(await getState(other.url)).toBe(seen);
      });
    }
  });
});

/** The first record of a collection (in the world's order) matching `test`. */
function firstOf(collection: Record<string, any>, test: (record: any) => boolean = () => true): any {
  return Object.values(collection).find(test);
}

describe("doubles.saveState(path) and createDoubles({ state })", () => {
  it("writes the world to a file and starts new doubles from it (file or object), byte for byte", () => {
    const path = join(dir, "world.json");
    const bytes = world.doubles.saveState(path);
    const text = readFileSync(path, "utf8");
    expect(Buffer.byteLength(text)).toBe(bytes);
    expect(text).toBe(stateText(exportState(world.doubles)));
    const fromFile = createDoubles({ state: path });
    expect(stateText(exportState(fromFile))).toBe(text);
    const fromObject = createDoubles({ state: JSON.parse(text) as StateDocument });
    expect(stateText(exportState(fromObject))).toBe(text);
    // reset() goes back to the loaded world.
    fromObject.advance("3h");
    fromObject.reset();
    expect(stateText(exportState(fromObject))).toBe(text);
  });

  it("refuses a missing file and a broken document with the file and the pointer", () => {
    expect(() => createDoubles({ state: join(dir, "none.json") })).toThrow(/ENOENT/);
    const doc = JSON.parse(savedText) as Record<string, any>;
    firstOf(doc.services.runs.runs).createdBy = "user-gone";
    expect(() => createDoubles({ state: doc as StateDocument })).toThrow(`state document: /services/runs/runs/${world.runIds[0] ?? ""}/createdBy: names user "user-gone", which the document does not hold`);
  });

  it("loads with importState() all or nothing", () => {
    const doubles = createDoubles();
    const before = stateText(exportState(doubles));
    const doc = JSON.parse(savedText) as Record<string, any>;
    doc.faults.list[0].service = "nope";
    expect(() => importState(doubles, doc)).toThrow(/\/faults\/list\/0\/service/);
    expect(stateText(exportState(doubles))).toBe(before);
  });
});

describe("migrations", () => {
  it("brings an older document to the current version through the migration hook, step by step", () => {
    const v0 = { format: "infra-doubles/state", version: 0, world: 1 };
    const migrated = migrateStateDocument(v0, { 0: ({ world, ...doc }) => ({ ...doc, version: 1, services: world }) });
    expect(migrated).toEqual({ format: "infra-doubles/state", version: 1, services: 1 });
    expect(() => migrateStateDocument(v0)).toThrow("state document: /version: version 0 cannot be migrated to version 1");
  });
});
