/**
 * A fresh world per test at msw's price (issue 25): `createDoubles()` copies each service's initial
 * state from one built once per process (per seed and start time), when the service is first used.
 * Determinism must hold byte for byte: the same seed and the same calls give the same answers, the
 * same journal and the same state whether the state was built for these doubles (the build before
 * this change), built once and copied, or copied in another order; on every transport. Options
 * that change the world (seed, start, a scenario document) give their own world.
 */
import { describe, expect, it } from "vitest";
import { ALL_PLUGINS, createDoubles, type Doubles, type DoublesOptions } from "../../src/scenarios/doubles.js";
import { configurationArchive } from "../../src/scenarios/runs/archive.js";
import { sshScenario } from "../../src/scenarios/secrets/ssh/index.js";
import type { ServiceDefinition } from "../../src/simulator/kernel/simulator.js";
import { DEFAULT_OUTCOME } from "../../src/simulator/runs/outcomes.js";
import { describeEachTransport, type TransportHarness } from "../support/transports.js";

/** Headers a server adds to every answer, and the only bytes that differ from one listen() to the next. */
const TRANSPORT_HEADERS = new Set(["date", "connection", "keep-alive", "transfer-encoding"]);

/**
 * `build()` with every service's initial state built for these doubles, as before the cache: each
 * plugin's definition is swapped for a copy without `cacheInitialState` meanwhile.
 */
function builtEagerly<T>(build: () => T): T {
  type Writable = { definition: ServiceDefinition<unknown> };
  const saved = ALL_PLUGINS.map((plugin) => plugin.definition);
  for (const plugin of ALL_PLUGINS) (plugin as unknown as Writable).definition = { ...plugin.definition, cacheInitialState: false };
  try {
    return build();
  } finally {
    ALL_PLUGINS.forEach((plugin, i) => ((plugin as unknown as Writable).definition = saved[i] as ServiceDefinition<unknown>));
  }
}

/** Copies every service's state now, last service first (the reverse of the order they are built in). */
function usedInReverse(doubles: Doubles): Doubles {
  for (const name of [...doubles.sim.services].reverse()) doubles.sim.read(name, () => undefined);
  return doubles;
}

/** What one run of the calls gives: each answer, the journal and the state, as text. */
interface Transcript {
  readonly answers: readonly string[];
  /** The journal's entries, as JSON (parsed back: a difference shows field by field). */
  readonly journal: unknown;
  readonly state: string;
}

/** A fixed sequence of calls over the three services, through `harness`'s transport. */
async function transcript(harness: TransportHarness, doubles: Doubles): Promise<Transcript> {
  const started = await harness.startWith(doubles);
  // The server's port is the one thing that differs from one listen() to the next.
  const origins = [...new Set(["runs", "accessControl", "secrets"].map((key) => new URL(started.base(key)).origin))];
  const hosts = origins.map((origin) => new URL(origin).host);
  const anonymous = (text: string): string => [...origins, ...hosts].reduce((out, name) => out.split(name).join("{origin}"), text);
  const answers: string[] = [];
  const call = async (service: string, method: string, target: string, init: { headers?: Record<string, string>; body?: string | Uint8Array<ArrayBuffer> } = {}): Promise<unknown> => {
    const url = target.startsWith("http") ? target : `${started.base(service)}${target}`;
    const response = await fetch(url, { method, ...init, redirect: "manual" });
    const bytes = Buffer.from(await response.arrayBuffer());
    const text = bytes.toString("utf8");
    const body = Buffer.from(text, "utf8").equals(bytes) ? text : `base64:${bytes.toString("base64")}`;
    const headers: string[] = [];
    response.headers.forEach((value, name) => {
      if (!TRANSPORT_HEADERS.has(name)) headers.push(`${name}: ${value}`);
    });
    answers.push(anonymous(`${method} ${url} -> ${response.status} ${headers.sort().join(", ")} ${body}`));
    try {
      return JSON.parse(text) as unknown;
    } catch {
      return undefined;
    }
  };

  const { runs, accessControl, secrets } = doubles;
  const ws = runs.addWorkspace(runs.addOrganization("acme"), { name: "prod" });
  const token = runs.issueUserToken(runs.addUser({ username: "alice", permissions: { [ws.id]: "write" } }).id);
  const jsonApi = { authorization: `Bearer ${token}`, "content-type": "application/vnd.api+json" };
  const cv = (await call("runs", "POST", `/workspaces/${ws.id}/configuration-versions`, { headers: jsonApi, body: JSON.stringify({ data: { type: "configuration-versions" } }) })) as {
    data: { id: string; attributes: { "upload-url": string } };
  };
  await call("runs", "PUT", cv.data.attributes["upload-url"], { headers: { "content-type": "application/octet-stream" }, body: configurationArchive() });
  doubles.advance("1m");
  const list = (await call("runs", "GET", `/workspaces/${ws.id}/runs`, { headers: jsonApi })) as { data: { id: string }[] };
  const runId = list.data[0]?.id ?? "none";
  await call("runs", "POST", `/runs/${runId}/actions/apply`, { headers: jsonApi, body: "{}" });
  doubles.advance("5m");
  await call("runs", "GET", `/runs/${runId}`, { headers: jsonApi });
  await call("runs", "GET", `/admin/terraform-versions`, { headers: jsonApi });

  const root = accessControl.bootstrapToken.secretId;
  const created = (await call("accessControl", "PUT", `/acl/token`, {
    headers: { "X-Acl-Token": root },
    body: JSON.stringify({ Description: "ci", ServiceIdentities: [{ ServiceName: "web" }], ExpirationTTL: "1h" }),
  })) as { SecretID: string };
  await call("accessControl", "GET", `/acl/token/self`, { headers: { "X-Acl-Token": created.SecretID } });
  await call("accessControl", "GET", `/acl/tokens`, { headers: { "X-Acl-Token": root } });
  await call("accessControl", "GET", `/acl/policies`, { headers: { "X-Acl-Token": root } });
  doubles.advance("1h");
  await call("accessControl", "GET", `/acl/token/self`, { headers: { "X-Acl-Token": created.SecretID } });

  sshScenario(secrets).addOtpRole("otp-role", { cidrList: "10.0.0.0/8" });
  const secretsRoot = secrets.rootToken;
  const otp = (await call("secrets", "POST", `/ssh/creds/otp-role`, { headers: { "x-secrets-token": secretsRoot }, body: '{"ip":"10.0.0.5"}' })) as { lease_id: string };
  await call("secrets", "PUT", `/sys/leases/lookup`, { headers: { "x-secrets-token": secretsRoot }, body: JSON.stringify({ lease_id: otp.lease_id }) });
  await call("secrets", "GET", `/sys/mounts`, { headers: { "x-secrets-token": secretsRoot } });
  await call("secrets", "GET", `/auth/token/lookup-self`, { headers: { "x-secrets-token": secretsRoot } });
  await call("secrets", "GET", `/sys/health`);

  const journal = JSON.stringify(doubles.journal.entries.map((entry) => ({ ...entry, responseHeaders: Object.fromEntries(Object.entries(entry.responseHeaders).filter(([name]) => !TRANSPORT_HEADERS.has(name))) })));
  const state = JSON.stringify(doubles.snapshot());
  await doubles.close();
  return { answers, journal: JSON.parse(anonymous(journal)) as unknown, state: anonymous(state) };
}

describeEachTransport("a fresh world: built, or copied from the process's cached one", (t) => {
  it("answers, journals and holds the same bytes for the same seed, however its services' states were made", async () => {
    // A seed no other test of this process uses: the first createDoubles with it builds the cache.
    const options: DoublesOptions = { seed: `fresh-world-${t.name}` };
    const built = await transcript(t, builtEagerly(() => createDoubles(options)));
    const firstCopy = await transcript(t, createDoubles(options));
    const copied = await transcript(t, createDoubles(options));
    const copiedInReverse = await transcript(t, usedInReverse(createDoubles(options)));
    expect(built.answers).toHaveLength(16);
    expect(built.answers.filter((line) => / -> 5\d\d /.test(line))).toEqual([]);
    for (const other of [firstCopy, copied, copiedInReverse]) {
      expect(other.answers).toEqual(built.answers);
      expect(other.journal).toEqual(built.journal);
      expect(other.state).toBe(built.state);
    }
    // Another seed is another world.
    const otherSeed = await transcript(t, createDoubles({ seed: `fresh-world-other-${t.name}` }));
    expect(otherSeed.answers).not.toEqual(built.answers);
  });

  it("gives a world of their own to a start time, a numeric seed and a scenario document, as a build does", async () => {
    const document = "runs:\n  organizations: [{ name: globex }]\naccessControl:\n  tokens: [{ name: ci, expirationTtl: 10m }]\n";
    const variants: readonly DoublesOptions[] = [{ seed: 41, start: "2025-03-01T12:00:00Z" }, { seed: 41 }, { seed: 41, scenario: document }, { seed: 42, scenario: document }];
    const seen = new Set<string>();
    for (const options of variants) {
      const built = await transcript(t, builtEagerly(() => createDoubles(options)));
      const copied = await transcript(t, createDoubles(options));
      expect(copied.answers).toEqual(built.answers);
      expect(copied.journal).toEqual(built.journal);
      expect(copied.state).toBe(built.state);
      seen.add(built.state);
    }
    expect(seen.size).toBe(variants.length);
  });
});

describe("a fresh world after another test changed its own", () => {
  it("starts from the pristine state, and reset() goes back to it", async () => {
    const pristine = JSON.stringify(builtEagerly(() => createDoubles({ seed: 77 })).snapshot());
    const used = createDoubles({ seed: 77 });
    used.runs.addOrganization("acme");
    used.accessControl.configure({ defaultPolicy: "allow" });
    used.secrets.setNodeState("sealed");
    used.advance("1h");
    expect(JSON.stringify(used.snapshot())).not.toBe(pristine);
    expect(JSON.stringify(createDoubles({ seed: 77 }).snapshot())).toBe(pristine);
    used.reset();
    expect(JSON.stringify(used.snapshot())).toBe(pristine);
    await used.close();
  });

  it("shares the frozen default run outcome, as a build does (runs without overrides keep one outcome, not a copy each)", () => {
    const outcomeOf = (doubles: Doubles): unknown => doubles.sim.read<{ settings: { outcome: unknown } }, unknown>("runs", (ctx) => ctx.state.settings.outcome);
    expect(outcomeOf(createDoubles({ seed: 78 }))).toBe(DEFAULT_OUTCOME);
    expect(outcomeOf(createDoubles({ seed: 78 }))).toBe(DEFAULT_OUTCOME);
    expect(outcomeOf(builtEagerly(() => createDoubles({ seed: 78 })))).toBe(DEFAULT_OUTCOME);
  });
});

describe("the three services' cacheable initial states", () => {
  it("hold no writable object in two places (a copy would split them where a build shares them)", () => {
    for (const plugin of ALL_PLUGINS) expect(plugin.definition.cacheInitialState).toBe(true);
    // A build, as before the cache: a copy would have split any sharing already.
    const doubles = builtEagerly(() => createDoubles({ seed: 79 }));
    for (const plugin of ALL_PLUGINS) {
      const seen = new Set<object>();
      const aliased: string[] = [];
      const walk = (value: unknown, path: string): void => {
        if (value === null || typeof value !== "object" || Object.isFrozen(value) || ArrayBuffer.isView(value)) return;
        if (seen.has(value)) aliased.push(path);
        seen.add(value);
        for (const [key, inner] of Object.entries(value)) walk(inner, `${path}/${key}`);
      };
      walk(doubles.sim.read(plugin.definition.name, (ctx) => ctx.state), plugin.key);
      expect(aliased).toEqual([]);
    }
  });
});
