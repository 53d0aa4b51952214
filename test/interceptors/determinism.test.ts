/**
 * Determinism across transports: the same seed and the same calls give byte-identical responses,
 * through nock and through the local server, for a scenario touching all three services. The only
 * difference allowed between the transports is where the services live (their base URLs), and
 * the headers node:http adds to every answer (`date`, `connection`, `keep-alive`).
 */
import { describe, expect, it } from "vitest";
import { configurationArchive } from "../../src/scenarios/runs/archive.js";
import { createDoubles, type Doubles } from "../../src/scenarios/doubles.js";
import { sshScenario } from "../../src/scenarios/secrets/ssh/index.js";

type Bases = Record<string, Record<string, string>>;
/** Headers node:http adds to every answer; the nock transport has no connection to describe. */
const TRANSPORT_HEADERS = new Set(["date", "connection", "keep-alive", "transfer-encoding"]);

interface Transcript {
  /** One line per call: the request, status, headers and body (UTF-8 text, or base64 for other bytes). */
  readonly lines: string[];
  /** The same lines without `content-length` (bodies naming a base URL differ in length across transports). */
  readonly withoutLengths: string[];
}

/** Runs the scenario through one transport; base URLs in requests and answers are replaced by their names. */
async function transcript(transport: "nock" | "interceptors" | "server", seed: number): Promise<Transcript> {
  const doubles = createDoubles({ seed });
  let bases: Bases;
  let stop: () => Promise<void>;
  if (transport !== "server") {
    const interception = doubles.intercept({ transport });
    bases = doubles.baseUrls();
    stop = async () => interception.stop();
  } else {
    const server = await doubles.listen();
    bases = Object.fromEntries(doubles.registeredPlugins.map((plugin) => [plugin.key, plugin.serverBases(server.url)]));
    stop = () => server.close();
  }
  try {
    const entries = await scenario(doubles, bases);
    const line = (entry: Entry, lengths: boolean): string =>
      `${entry.request} -> ${entry.status} ${JSON.stringify(lengths ? entry.headers : entry.headers.filter(([name]) => name !== "content-length"))} ${entry.body}`;
    return { lines: entries.map((entry) => line(entry, true)), withoutLengths: entries.map((entry) => line(entry, false)) };
  } finally {
    await stop();
  }
}

function headerList(headers: Headers): [string, string][] {
  const list: [string, string][] = [];
  headers.forEach((value, name) => list.push([name, value]));
  return list;
}

interface Entry {
  readonly request: string;
  readonly status: number;
  readonly headers: [string, string][];
  readonly body: string;
}

async function scenario(doubles: Doubles, bases: Bases): Promise<Entry[]> {
  const entries: Entry[] = [];
  /** `{runs.archive}/...` for a URL under one of the service's bases. */
  const named = (service: string, text: string): string =>
    Object.entries(bases[service] ?? {})
      .sort((a, b) => b[1].length - a[1].length)
      .reduce((out, [name, base]) => out.split(base.replace(/\/+$/, "")).join(`{${service}.${name}}`), text);
  const call = async (service: string, method: string, target: string, init: { headers?: Record<string, string>; body?: string | Uint8Array<ArrayBuffer> } = {}): Promise<unknown> => {
    const url = target.startsWith("http") ? target : `${bases[service]?.api ?? ""}${target}`;
    const response = await fetch(url, { method, ...init, redirect: "manual" });
    const bytes = Buffer.from(await response.arrayBuffer());
    const text = bytes.toString("utf8");
    const isText = Buffer.from(text, "utf8").equals(bytes);
    entries.push({
      request: `${method} ${named(service, url)}`,
      status: response.status,
      headers: headerList(response.headers).filter(([name]) => !TRANSPORT_HEADERS.has(name)).map(([name, value]): [string, string] => [name, named(service, value)]).sort(),
      body: isText ? named(service, text) : `base64:${bytes.toString("base64")}`,
    });
    try {
      return JSON.parse(text) as unknown;
    } catch {
      return text;
    }
  };

  // Run orchestration: upload a configuration, let the run plan, apply it.
  const { runs } = doubles;
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
  await call("runs", "GET", `/configuration-versions/${cv.data.id}/download`, { headers: jsonApi });
  await call("runs", "POST", `/runs`, { headers: jsonApi, body: '{"data":{"type":"runs"}}' });

  // Access control: a token with a TTL, read back, listed, expired.
  const root = doubles.accessControl.bootstrapToken.secretId;
  const created = (await call("accessControl", "PUT", `/acl/token`, {
    headers: { "X-Acl-Token": root },
    body: JSON.stringify({ Description: "ci", ServiceIdentities: [{ ServiceName: "web" }], ExpirationTTL: "1h" }),
  })) as { SecretID: string };
  await call("accessControl", "GET", `/acl/token/self`, { headers: { "X-Acl-Token": created.SecretID } });
  await call("accessControl", "GET", `/acl/tokens`, { headers: { "X-Acl-Token": root } });
  await call("accessControl", "PUT", `/acl/token`, { headers: { "X-Acl-Token": root }, body: '{"Polices":[]}' });
  doubles.advance("1h");
  await call("accessControl", "GET", `/acl/token/self`, { headers: { "X-Acl-Token": created.SecretID } });

  // Secrets: a token, an OTP with its lease, a list, health.
  sshScenario(doubles.secrets).addOtpRole("otp-role", { cidrList: "10.0.0.0/8" });
  const secretsRoot = doubles.secrets.rootToken;
  const otp = (await call("secrets", "POST", `/ssh/creds/otp-role`, { headers: { "x-secrets-token": secretsRoot }, body: '{"ip":"10.0.0.5"}' })) as { lease_id: string };
  await call("secrets", "PUT", `/sys/leases/lookup`, { headers: { "x-secrets-token": secretsRoot }, body: JSON.stringify({ lease_id: otp.lease_id }) });
  await call("secrets", "LIST", `/ssh/roles`, { headers: { "x-secrets-token": secretsRoot } });
  await call("secrets", "GET", `/ssh/roles?list=true`, { headers: { "x-secrets-token": secretsRoot } });
  await call("secrets", "GET", `/sys/health`);
  await call("secrets", "HEAD", `/sys/health`);
  await call("secrets", "POST", `/ssh/creds/otp-role`, { headers: { "x-secrets-token": secretsRoot, "content-type": "application/json" }, body: '{"ip":' });
  return entries;
}

describe("determinism across transports", () => {
  it("gives byte-identical answers for the same seed and calls, through nock and through the server alike", async () => {
    const nockA = await transcript("nock", 7);
    const nockB = await transcript("nock", 7);
    const serverA = await transcript("server", 7);
    const serverB = await transcript("server", 7);
    const otherSeed = await transcript("nock", 8);
    const interceptors = await transcript("interceptors", 7);
    expect(nockA.lines).toHaveLength(19);
    expect(nockA.lines.filter((line) => / -> 5\d\d /.test(line))).toEqual([]);
    expect(nockB.lines).toEqual(nockA.lines);
    expect(interceptors.lines).toEqual(nockA.lines);
    expect(serverB.lines).toEqual(serverA.lines);
    expect(serverA.withoutLengths).toEqual(nockA.withoutLengths);
    expect(otherSeed.lines).not.toEqual(nockA.lines);
  });
});
