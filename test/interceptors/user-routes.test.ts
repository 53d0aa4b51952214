/**
 * Issue 23 item 4: a way out for what no spec covers. User routes (`doubles.<service>.route()`)
 * and passthrough to a real server, through HTTP on every transport: the answers, their journal
 * entries and coverage, faults on user routes, a KV read passed through to a real node:http
 * server next to SSH OTPs the fake simulates, and a 502 in the service's own shape when the real
 * server cannot be reached.
 */
import { createServer, type IncomingMessage, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterEach, expect, expectTypeOf, it } from "vitest";
import { mergeCoverage } from "../../src/scenarios/coverage/report.js";
import type { PathParams, UserRouteName } from "../../src/scenarios/user-routes.js";
import { createDoubles, type Doubles, type DoublesOptions } from "../../src/scenarios/doubles.js";
import { sshScenario } from "../../src/scenarios/secrets/ssh/ssh-scenario.js";
import { describeEachTransport, type StartedTransport } from "../support/transports.js";
import { loadNock } from "../../src/interceptors/transports/nock-module.js";

/** A small real server standing for the real secrets service: answers KV reads, records what it got. */
interface RealServer {
  readonly url: string;
  readonly received: { method: string; url: string; headers: IncomingMessage["headers"]; body: string }[];
  close(): Promise<void>;
}

const realServers: RealServer[] = [];
afterEach(async () => {
  for (const server of realServers.splice(0)) await server.close();
});

async function startRealServer(answer: (req: IncomingMessage, body: string) => { status: number; body?: unknown; headers?: Record<string, string> } | "hang" = () => ({ status: 200, body: {} })): Promise<RealServer> {
  const received: RealServer["received"] = [];
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      const body = Buffer.concat(chunks).toString("utf8");
      received.push({ method: req.method ?? "", url: req.url ?? "", headers: req.headers, body });
      const out = answer(req, body);
      if (out === "hang") return;
      res.writeHead(out.status, { "content-type": "application/json", ...out.headers });
      res.end(out.body === undefined ? undefined : JSON.stringify(out.body));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const real: RealServer = {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    received,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
  realServers.push(real);
  return real;
}

/** A port nothing listens on (a server bound, then closed). */
async function deadPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const port = (server.address() as AddressInfo).port;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

async function call(started: StartedTransport, service: string, method: string, path: string, init: { headers?: Record<string, string>; body?: unknown } = {}): Promise<{ status: number; headers: Headers; body: unknown; text: string }> {
  const response = await fetch(`${started.base(service)}${path}`, {
    method,
    headers: { ...(init.body === undefined ? {} : { "content-type": "application/json" }), ...init.headers },
    ...(init.body === undefined ? {} : { body: JSON.stringify(init.body) }),
  });
  const text = await response.text();
  let body: unknown = text;
  try {
    body = JSON.parse(text);
  } catch {
    // not JSON
  }
  return { status: response.status, headers: response.headers, body, text };
}

describeEachTransport("user routes and passthrough (issue 23 item 4)", (t) => {
  const start = (options: DoublesOptions = {}): Promise<StartedTransport<Doubles>> => t.startWith(createDoubles({ uniqueOrigins: true, ...options }));

  it("answers a user route with the request's params, query, headers and parsed body, and the world's time", async () => {
    const started = await start();
    const { doubles } = started;
    doubles.advance("1h");
    const kv = doubles.secrets.route("POST", "/secret/data/*path", (request, world) => ({
      status: 201,
      headers: { "X-Kv-Path": request.params.path },
      body: { path: request.params.path, version: request.query.get("version"), token: request.headers["x-vault-token"], sent: request.body, at: world.time, service: world.service },
    }));
    const answer = await call(started, "secrets", "POST", "/secret/data/team/app?version=2", { headers: { "x-vault-token": "s.abc" }, body: { data: { password: "hunter2" } } });
    expect(answer.status).toBe(201);
    expect(answer.headers.get("x-kv-path")).toBe("team/app");
    expect(answer.body).toEqual({ path: "team/app", version: "2", token: "s.abc", sent: { data: { password: "hunter2" } }, at: "2024-01-01T01:00:00.000Z", service: "secrets" });
    expect(kv.name).toBe("POST /secret/data/*path");

    // Journalled with the template, as answered by a user route; a filter takes its name.
    const [entry] = doubles.journal.filter({ route: kv.name });
    expect(entry).toMatchObject({ service: "secrets", route: "/secret/data/*path", endpoint: "POST /secret/data/*path", answeredBy: "user route", status: 201, matched: true });
    expect(doubles.journal.format()).toContain("answered by: user route");

    // Coverage counts it as a user route, outside the service's endpoints and unmatched answers.
    const coverage = doubles.coverage().services.secrets;
    expect(coverage?.userRoutes).toEqual({ "POST /secret/data/*path": { "201": 1 } });
    expect(coverage?.unmatched).toEqual({});
    expect(coverage?.endpoints.reached).not.toHaveProperty("POST /secret/data/*path");

    // Removed: the service's own 404 again.
    kv.remove();
    const gone = await call(started, "secrets", "POST", "/secret/data/team/app", { headers: { "x-vault-token": doubles.secrets.rootToken }, body: {} });
    expect(gone.status).toBe(404);
    expect(gone.body).toEqual({ errors: ['no handler for route "secret/data/team/app". route entry not found.'] });
  });

  it("gives user routes to every service, never in place of a simulated route", async () => {
    const started = await start();
    const { doubles } = started;
    doubles.runs.route("GET", "/organizations/:name/agent-pools", ({ params }) => ({ body: { data: [], meta: { org: params.name } } }));
    doubles.accessControl.route("GET", "/kv/:key", ({ params }) => ({ body: [{ Key: params.key, Value: Buffer.from("v").toString("base64") }] }));
    expect(await call(started, "runs", "GET", "/organizations/acme/agent-pools")).toMatchObject({ status: 200, body: { data: [], meta: { org: "acme" } } });
    expect(await call(started, "accessControl", "GET", "/kv/config")).toMatchObject({ status: 200, body: [{ Key: "config", Value: "dg==" }] });
    // A route the service simulates is refused: it would never be reached.
    expect(() => doubles.runs.route("GET", "/runs/:run_id", () => ({}))).toThrow(/simulates "GET \/runs\/:run_id" itself/);
    expect(() => doubles.secrets.route("GET", "/v1/secret/data/:path", () => ({}))).toThrow(/without the API prefix: "\/secret\/data\/:path"/);
    expect(() => doubles.secrets.route("get", "/secret/data/:path", () => ({}))).toThrow(/upper-case/);
    // The service's own routes still answer first: the OTP route is the fake's.
    sshScenario(doubles.secrets).addOtpRole("otp-role", { cidrList: "10.0.0.0/8" });
    const otp = await call(started, "secrets", "POST", "/ssh/creds/otp-role", { headers: { "x-vault-token": doubles.secrets.rootToken }, body: { ip: "10.0.0.5" } });
    expect(otp.status).toBe(200);
    expect(doubles.journal.filter({ route: "POST /ssh/creds/:name" })[0]?.answeredBy).toBeUndefined();
  });

  it("answers a throwing user route with the service's own 500 shape, no stack trace, and the error in the journal", async () => {
    const started = await start();
    const { doubles } = started;
    doubles.secrets.route("GET", "/secret/data/:path", () => {
      throw new Error("vault KV is not ready");
    });
    doubles.runs.route("GET", "/admin/users", async () => {
      throw new TypeError("nope");
    });
    const secrets = await call(started, "secrets", "GET", "/secret/data/app");
    expect(secrets.status).toBe(500);
    expect(secrets.body).toEqual({ errors: ['infra-doubles: user route "GET /secret/data/:path" threw Error: vault KV is not ready (stack trace in the journal)'] });
    const runs = await call(started, "runs", "GET", "/admin/users");
    expect(runs.status).toBe(500);
    expect(runs.body).toMatchObject({ errors: [{ status: "500", detail: 'infra-doubles: user route "GET /admin/users" threw TypeError: nope (stack trace in the journal)' }] });
    for (const text of [secrets.text, runs.text]) expect(text).not.toMatch(/\bat .*\.ts:\d+/);
    const [entry] = doubles.journal.filter({ service: "secrets", status: 500 });
    expect(entry?.error).toMatch(/^Error: vault KV is not ready\n\s+at /);
    // A handler that returns a bad answer is the same failure.
    doubles.secrets.route("GET", "/secret/metadata/:path", () => ({ status: 42 }));
    expect((await call(started, "secrets", "GET", "/secret/metadata/app")).body).toEqual({ errors: [expect.stringContaining("status must be an integer from 100 to 599")] });
  });

  it("applies faults to user routes like other routes", async () => {
    const started = await start();
    const { doubles } = started;
    const kv = doubles.secrets.route("GET", "/secret/data/:path", () => ({ body: { data: { data: { a: "1" } } } }));
    const fault = doubles.faults.add({ service: "secrets", route: kv.name, answer: "sealed", times: 1 });
    const sealed = await call(started, "secrets", "GET", "/secret/data/app");
    expect(sealed.status).toBe(503);
    expect(sealed.body).toEqual({ errors: ["Vault is sealed"] });
    expect(await call(started, "secrets", "GET", "/secret/data/app")).toMatchObject({ status: 200, body: { data: { data: { a: "1" } } } });
    expect(doubles.journal.filter({ route: kv.name }).map((e) => [e.status, e.fault])).toEqual([
      [503, fault.id],
      [200, undefined],
    ]);
    // A route name that is no route of the service, nor a user route, is still refused.
    expect(() => doubles.faults.add({ service: "secrets", route: "GET /secret/data/:name" as never, answer: "sealed" })).toThrow(/no route "GET \/secret\/data\/:name"/);
  });

  it("passes a KV read through to a real server, next to SSH OTPs the fake simulates", async () => {
    const real = await startRealServer((req) => ({ status: 200, body: { data: { data: { password: "from-real-vault" } }, path: req.url, token: req.headers["x-vault-token"] }, headers: { "x-real": "yes" } }));
    const started = await start({ passthrough: { secrets: real.url } });
    const { doubles } = started;
    sshScenario(doubles.secrets).addOtpRole("otp-role", { cidrList: "10.0.0.0/8" });
    const token = doubles.secrets.rootToken;
    const otp = await call(started, "secrets", "POST", "/ssh/creds/otp-role", { headers: { "x-vault-token": token }, body: { ip: "10.0.0.5" } });
    expect(otp.status).toBe(200);
    expect(otp.body).toMatchObject({ data: { key_type: "otp", ip: "10.0.0.5" } });
    const kv = await call(started, "secrets", "GET", "/secret/data/app?version=1", { headers: { "x-vault-token": token } });
    expect(kv.status).toBe(200);
    expect(kv.headers.get("x-real")).toBe("yes");
    expect(kv.body).toEqual({ data: { data: { password: "from-real-vault" } }, path: "/v1/secret/data/app?version=1", token });
    // Only the unsimulated request reached the real server, with its method, path, query and token.
    expect(real.received.map((r) => `${r.method} ${r.url}`)).toEqual(["GET /v1/secret/data/app?version=1"]);
    const entry = doubles.journal.filter({ service: "secrets" }).at(-1);
    expect(entry).toMatchObject({ answeredBy: "passthrough", route: undefined, status: 200, matched: true });
    expect(doubles.coverage().services.secrets?.passedThrough).toEqual({ "200": 1 });
    // A write passes its body through.
    await call(started, "secrets", "PUT", "/secret/data/app", { headers: { "x-vault-token": token }, body: { data: { a: 1 } } });
    expect(real.received.at(-1)).toMatchObject({ method: "PUT", url: "/v1/secret/data/app", body: '{"data":{"a":1}}' });
    // A user route answers before the passthrough.
    doubles.secrets.route("GET", "/secret/data/:path", () => ({ body: { from: "user route" } }));
    expect((await call(started, "secrets", "GET", "/secret/data/app")).body).toEqual({ from: "user route" });
    expect(real.received).toHaveLength(2);
  });

  it("answers 502 in the service's own shape when the real server is unreachable or silent", async () => {
    const port = await deadPort();
    const silent = await startRealServer(() => "hang");
    const started = await start({ passthrough: { secrets: `http://127.0.0.1:${port}`, runs: { url: silent.url, timeoutMs: 200 } } });
    const { doubles } = started;
    const refused = await call(started, "secrets", "GET", "/secret/data/app");
    expect(refused.status).toBe(502);
    expect(refused.body).toEqual({ errors: [`infra-doubles: passthrough to http://127.0.0.1:${port} failed: ECONNREFUSED (connect ECONNREFUSED 127.0.0.1:${port})`] });
    const timedOut = await call(started, "runs", "GET", "/organizations/acme/agent-pools");
    expect(timedOut.status).toBe(502);
    expect(timedOut.body).toMatchObject({ errors: [{ status: "502", title: "bad gateway", detail: `infra-doubles: passthrough to ${silent.url} failed: no answer within 200 ms` }] });
    const entries = doubles.journal.filter({ status: 502 });
    expect(entries.map((e) => [e.service, e.answeredBy, e.error?.includes("passthrough to")])).toEqual([
      ["secrets", "passthrough", true],
      ["runs", "passthrough", true],
    ]);
    expect(doubles.coverage().services.secrets?.passedThrough).toEqual({ "502": 1 });
  });
});

it("refuses a passthrough to an origin the doubles serve, and to no service", () => {
  expect(() => createDoubles({ passthrough: { secrets: "https://secrets.test" } })).toThrow(/an origin these doubles serve/);
  expect(() => createDoubles({ passthrough: { vault: "http://127.0.0.1:8200" } })).toThrow(/unknown option "passthrough.vault"/);
  expect(() => createDoubles({ passthrough: { secrets: "ftp://x" } })).toThrow(/absolute http\(s\) URL/);
});

it("types a route's params from its template, and its name for faults and journal filters", () => {
  expectTypeOf<PathParams<"/secret/:mount/data/*path">>().toEqualTypeOf<{ readonly mount: string; readonly path: string }>();
  expectTypeOf<keyof PathParams<"/sys/plugins">>().toEqualTypeOf<never>();
  const doubles = createDoubles();
  const kv = doubles.secrets.route("GET", "/secret/data/:path", (request) => {
    expectTypeOf(request.params).toEqualTypeOf<{ readonly path: string }>();
    return { body: {} };
  });
  expectTypeOf(kv.name).toEqualTypeOf<UserRouteName>();
  expect(doubles.journal.count({ route: kv.name })).toBe(0);
  // @ts-expect-error a user route name is no spec route name: a plain string is not taken
  expect(() => doubles.journal.count({ route: "GET /secret/data/:nope" })).toThrow(/no route "GET \/secret\/data\/:nope"/);
});

it("merges the user-route and passthrough counts of coverage reports as sums", () => {
  const base = createDoubles().coverage();
  const secrets = base.services.secrets;
  if (secrets === undefined) throw new Error("no secrets coverage");
  const one = { ...base, services: { ...base.services, secrets: { ...secrets, userRoutes: { "GET /secret/data/:path": { "200": 2 } }, passedThrough: { "502": 1 } } } };
  const two = { ...base, services: { ...base.services, secrets: { ...secrets, userRoutes: { "GET /secret/data/:path": { "200": 1, "500": 1 }, "LIST /secret/metadata/*path": { "200": 1 } } } } };
  const merged = mergeCoverage([one, two]).services.secrets;
  expect(merged?.userRoutes).toEqual({ "GET /secret/data/:path": { "200": 3, "500": 1 }, "LIST /secret/metadata/*path": { "200": 1 } });
  expect(merged?.passedThrough).toEqual({ "502": 1 });
  expect(mergeCoverage([base, base]).services.secrets).not.toHaveProperty("userRoutes");
});

it("sends a passthrough with node:http's own client, so nock's disableNetConnect() never sees it", async () => {
  const real = await startRealServer(() => ({ status: 200, body: { data: { data: { a: "real" } } } }));
  const doubles = createDoubles({ uniqueOrigins: true, passthrough: { secrets: real.url } });
  const interception = doubles.intercept();
  // The nock the transport loaded (nock 14, or nock 15 under INFRA_DOUBLES_TEST_NOCK=nock15).
  const nock = loadNock();
  nock.disableNetConnect();
  try {
    const answer = await fetch(`${doubles.baseUrls().secrets.api}/secret/data/app`);
    expect(answer.status).toBe(200);
    expect(await answer.json()).toEqual({ data: { data: { a: "real" } } });
    expect(real.received).toHaveLength(1);
    // The user's own requests to the same host are still refused by nock.
    await expect(fetch(`${real.url}/v1/secret/data/app`)).rejects.toThrow();
    expect(real.received).toHaveLength(1);
  } finally {
    nock.enableNetConnect();
    interception.stop();
  }
});
