/**
 * Request generation: a valid request drawn from the services' route tables (path parameters
 * filled with ids that exist in the world and ids that do not), then zero or more mutations of
 * issue 8: wrong methods, malformed and deeply nested JSON, wrong content types, large bodies,
 * odd paths, missing/duplicated/oversized headers, token classes, numbers out of range, type
 * confusion, long ids. Everything comes from `Prng(seed, index)`: one index, one request.
 */
import { catalogOf } from "../../../src/interceptors/router.js";
import type { Doubles } from "../../../src/scenarios/doubles.js";
import { Prng } from "./prng.js";
import type { ServiceKey, TokenClass, WorldIds } from "./world.js";

/** An endpoint of a route table: method and path pattern relative to a base. */
export interface Endpoint {
  readonly service: ServiceKey;
  readonly base: string;
  readonly method: string;
  readonly pattern: string;
}

/** Which transports a request must be able to cross: `portable` (fetch, node:http, handler) or raw `socket`. */
export type Profile = "portable" | "socket";

/** A generated request, transport-free: the path is relative to the service's base. */
export interface FuzzRequest {
  readonly index: number;
  readonly service: ServiceKey;
  readonly base: string;
  /** The route it was drawn from (`GET /runs/:run_id`). */
  readonly endpoint: string;
  readonly method: string;
  /** Raw path after the base (percent-encoded as sent), starting with `/` unless mutated. */
  readonly path: string;
  /** Raw query string, without `?` (may be empty). */
  readonly query: string;
  /** Header lines in order; a name may repeat. */
  readonly headers: readonly (readonly [string, string])[];
  readonly body: Uint8Array;
  readonly tokenClass: TokenClass;
  /** The token sent (if any). */
  readonly token?: string;
  /** Mutation names applied (empty: a valid request). */
  readonly mutations: readonly string[];
  /** Socket framing (raw-socket transport only). */
  readonly framing?: Framing;
}

/**
 * How the raw-socket transport frames a request. `cl-short` (a body longer than its
 * Content-Length) is not drawn: node:http answers the trailing bytes with 400 and may drop the
 * earlier answer, depending on timing, so it cannot replay deterministically.
 */
export type Framing = "plain" | "split" | "chunked" | "pipelined" | "cl-long" | "cl-bad" | "cl-te";

const enc = new TextEncoder();

/** The endpoints of every service, from the route tables of the world's handler (nock bases). */
export function endpointsOf(doubles: Doubles): Endpoint[] {
  const keys: Record<string, ServiceKey> = {};
  for (const plugin of doubles.registeredPlugins) keys[plugin.http.name] = plugin.key as ServiceKey;
  const out: Endpoint[] = [];
  for (const mount of doubles.handler.mounts) {
    const service = keys[mount.service.name];
    if (service === undefined) continue;
    for (const label of catalogOf(mount.service, doubles.sim)) {
      const [method = "GET", pattern = "/"] = label.split(" ");
      out.push({ service, base: "api", method, pattern });
    }
    for (const route of mount.service.routes) {
      const base = route.base ?? "api";
      if (base === "api") continue;
      for (const method of typeof route.method === "string" ? [route.method] : route.method) {
        out.push({ service, base, method, pattern: route.path.replace(/\*(\w+)/, ":$1") });
      }
    }
  }
  return out;
}

const AUTH: Record<ServiceKey, (token: string) => [string, string]> = {
  runs: (t) => ["Authorization", `Bearer ${t}`],
  accessControl: (t) => ["X-Acl-Token", t],
  secrets: (t) => ["X-Secrets-Token", t],
};

const ED25519_PUB = "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIFzjV59ebHFmT4kR1d4H0mTq5m3qYq3yq9qz1Z5uQ8nA fuzz@test";

/** Plausible bodies per path pattern (POST/PUT/PATCH), the starting point of body mutations. */
export function template(e: Endpoint, ids: WorldIds, rng: Prng): unknown {
  const ws = rng.pick(ids.pools.workspaces ?? ["ws-x"]);
  const p = e.pattern;
  if (e.service === "runs") {
    if (p === "/runs") {
      return { data: { type: "runs", attributes: { message: "fuzz", "is-destroy": rng.chance(0.2), "plan-only": rng.chance(0.3), "auto-apply": rng.chance(0.3) }, relationships: { workspace: { data: { type: "workspaces", id: ws } } } } };
    }
    if (p.endsWith("/configuration-versions")) return { data: { type: "configuration-versions", attributes: { "auto-queue-runs": rng.chance(0.5), speculative: rng.chance(0.3) } } };
    if (p.includes("/actions/")) return { comment: "fuzz" };
    if (p === "/admin/engine-versions") {
      return { data: { type: "engine-versions", attributes: { version: `1.${rng.range(10, 99)}.${rng.range(0, 9)}`, url: "https://releases.engine.example/e.zip", sha: "a".repeat(64), official: rng.chance(0.5), enabled: true, beta: false } } };
    }
    if (p.startsWith("/admin/engine-versions/")) return { data: { type: "engine-versions", attributes: { enabled: rng.chance(0.5), deprecated: rng.chance(0.5) } } };
    return {};
  }
  if (e.service === "accessControl") {
    if (p === "/acl/token" || p === "/acl/token/:AccessorID") return { Description: "fuzz", Policies: [{ Name: rng.pick(["acl-read", "acl-write", "nope"]) }], ...(rng.chance(0.3) ? { ExpirationTTL: rng.pick(["1h", "30s", "25h", "5m"]) } : {}) };
    if (p.endsWith("/clone")) return { Description: "clone" };
    if (p.startsWith("/acl/binding-rule")) return { AuthMethod: "dev-method", BindType: rng.pick(["service", "node", "role", "policy"]), BindName: "${serviceaccount.name}", Selector: "serviceaccount.namespace==default" };
    if (p === "/acl/login") return { AuthMethod: rng.pick(["dev-method", "nope"]), BearerToken: rng.pick(["dev-bearer-token", "wrong"]) };
    if (p === "/acl/policy" || p === "/acl/policy/:id") {
      return { Name: rng.pick(["fuzz-policy", "acl-read", "bad name"]), Rules: rng.pick(['acl = "read"', 'acl = "list"', 'key_prefix "" { policy = "write" }', "acl = read", '{"acl": "write"}']) };
    }
    if (p === "/acl/role" || p === "/acl/role/:id") {
      return { Name: rng.pick(["fuzz-role", "bad name"]), Policies: [{ Name: rng.pick(["acl-read", "acl-write", "nope"]) }], ...(rng.chance(0.3) ? { ServiceIdentities: [{ ServiceName: rng.pick(["web", "Web!"]) }] } : {}) };
    }
    return {};
  }
  if (p.startsWith("/sys/mounts/")) return { type: rng.pick(["ssh", "cloud", "kv", "nope"]), description: "fuzz" };
  if (p === "/sys/leases/renew" || p === "/sys/leases/revoke" || p === "/sys/leases/lookup") return { lease_id: rng.pick(ids.pools.renew?.length ? ids.pools.renew : ["x"]), increment: rng.pick([60, 3600, "1h"]) };
  if (p.startsWith("/sys/leases/")) return { increment: 3600 };
  if (p.startsWith("/sys/managed-keys/")) return { key_type: rng.pick(["ec", "ed25519", "rsa"]), curve: "P-256", key_bits: 2048, library: "softhsm", slot: "0", pin: "1234", key_label: "k", kms_key: "alias/k", allow_generate_key: rng.chance(0.5) };
  if (p.startsWith("/identity/mfa/login-enforcement/")) return { mfa_method_ids: ["m-1"], auth_method_types: ["userpass"] };
  if (p.includes("/roles/")) {
    return rng.pick<unknown>([
      { key_type: "otp", default_user: "ubuntu", cidr_list: "10.0.0.0/8" },
      { key_type: "ca", allow_user_certificates: true, allowed_users: "*", default_user: "ubuntu", ttl: "1h", max_ttl: "2h" },
      { credential_type: "iam_user", policy_arns: ["arn:aws:iam::aws:policy/ReadOnlyAccess"] },
      { credential_type: "assumed_role", role_arns: ["arn:aws:iam::123456789012:role/Deployer"], default_sts_ttl: 900 },
    ]);
  }
  if (p.includes("/creds/")) return rng.chance(0.5) ? { ip: rng.pick(["10.0.0.5", "192.168.1.1", "::1"]), username: "ubuntu" } : { ttl: rng.pick(["1h", "15m", 900]) };
  if (p.includes("/sts/")) return { ttl: rng.pick(["1h", 900]) };
  if (p.endsWith("/verify")) return { otp: "00000000-0000-0000-0000-000000000000" };
  if (p.endsWith("/lookup")) return { ip: "10.0.0.5" };
  if (p.endsWith("/config/ca")) return { generate_signing_key: true, key_type: rng.pick(["ssh-ed25519", "ec"]), key_bits: rng.pick([0, 256]) };
  if (p.includes("/sign/")) return { public_key: ED25519_PUB, valid_principals: "ubuntu", cert_type: "user", ttl: "1h" };
  if (p.endsWith("/config/zeroaddress")) return { roles: "otp-role" };
  if (p.includes("/keys/")) return { key: "-----BEGIN OPENSSH PRIVATE KEY-----\nAAAA\n-----END OPENSSH PRIVATE KEY-----\n" };
  if (p.endsWith("/config/root")) return { access_key: "AKIAFUZZFUZZFUZZFUZZ", secret_key: "fuzz/secret", region: "us-east-1" };
  if (p.endsWith("/config/lease")) return { lease: "1h", lease_max: "24h" };
  if (p.includes("/static-roles/")) return { username: "secrets-root", rotation_period: "1h" };
  return {};
}

const UNICODE = ["é", "💥", "\u202e", "\u0000", "ü", "中", "\ud800"];

function fillParam(rng: Prng, segment: string, ids: WorldIds, existing: boolean): string {
  const pool = ids.pools[segment] ?? [];
  if (existing && pool.length > 0) return encodeURIComponent(rng.pick(pool));
  return rng.weighted<() => string>([
    [() => `${segment.slice(0, 4)}-${rng.string(16, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789")}`, 6],
    [() => rng.string(rng.range(1, 40)), 3],
    [() => "00000000-0000-0000-0000-000000000000", 1],
    [() => rng.pick(["__proto__", "constructor", "toString", "hasOwnProperty", "valueOf"]), 1], // names of Object.prototype's members are ordinary names to the services
  ])();
}

/** The concrete path of an endpoint, with ids that exist (mostly) or not. */
function concretePath(rng: Prng, e: Endpoint, ids: WorldIds): string {
  const segments = e.pattern.split("/");
  const out: string[] = [];
  for (let i = 0; i < segments.length; i++) {
    const segment = segments[i] ?? "";
    if (segment.startsWith(":") || segment.startsWith("*")) {
      const before = segments[i - 1] ?? "";
      const key = ids.pools[before] ? before : segments[i - 2] && ids.pools[segments[i - 2] ?? ""] ? (segments[i - 2] ?? "") : before;
      out.push(fillParam(rng, key, ids, rng.chance(0.75)));
    } else out.push(segment);
  }
  return out.join("/");
}

const METHODS = ["GET", "POST", "PUT", "PATCH", "DELETE", "HEAD", "OPTIONS", "LIST"];

type Mutation = (r: Draft, rng: Prng, ctx: MutationContext) => void;

interface Draft {
  method: string;
  path: string;
  query: string;
  headers: [string, string][];
  body: Uint8Array;
  json: unknown;
  framing?: Framing;
}

interface MutationContext {
  readonly profile: Profile;
  readonly service: ServiceKey;
  readonly token: string | undefined;
  readonly ids: WorldIds;
}

function setJson(r: Draft, value: unknown): void {
  r.json = value;
  r.body = enc.encode(JSON.stringify(value));
}

/** A path into an object: mutates one leaf (or the root). */
function mutateLeaf(value: unknown, rng: Prng, replace: (old: unknown) => unknown): unknown {
  if (value === null || typeof value !== "object" || rng.chance(0.15)) return replace(value);
  const entries = Object.entries(value as Record<string, unknown>);
  if (entries.length === 0) return replace(value);
  const [key, child] = rng.pick(entries);
  const copy: Record<string, unknown> | unknown[] = Array.isArray(value) ? [...value] : { ...(value as Record<string, unknown>) };
  (copy as Record<string, unknown>)[key] = mutateLeaf(child, rng, replace);
  return copy;
}

const OUT_OF_RANGE = ["9007199254740993", "-1", "1e999", "-0", "1.5", "99999999999999999999999", "2147483648", "-9223372036854775809", "0x10", "1e-400"];

/** The mutations of issue 8, by name. Names are what the allow-list and reports refer to. */
export const MUTATIONS: Readonly<Record<string, Mutation>> = {
  "method-wrong": (r, rng) => {
    r.method = rng.pick(METHODS.filter((m) => m !== r.method));
  },
  "method-lower": (r) => {
    r.method = r.method.toLowerCase();
  },
  "method-unknown": (r, rng, ctx) => {
    r.method = rng.pick(ctx.profile === "socket" ? ["TRACE", "PROPFIND", "M-SEARCH", "BREW", "PURGE"] : ["PROPFIND", "M-SEARCH", "BREW", "PURGE"]);
  },
  "json-malformed": (r, rng) => {
    const text = new TextDecoder().decode(r.body);
    const bad = rng.pick([
      () => text.slice(0, Math.max(1, rng.int(text.length))),
      () => `${text}}`,
      () => `${text} trailing`,
      () => text.replace(/"/g, "'"),
      () => "NaN",
      () => `\ufeff${text}`,
      () => "",
      () => "{\"a\":}",
      () => "[1,2",
      () => "\"unterminated",
      () => "{\"a\":1,\"a\":2}",
      () => "{\"__proto__\":{\"polluted\":1},\"constructor\":{\"prototype\":{\"x\":1}}}",
    ])();
    r.body = enc.encode(bad);
    if (rng.chance(0.2)) r.body = new Uint8Array([0x7b, 0x22, 0xff, 0xfe, 0x22, 0x3a, 0x31, 0x7d]); // {"\xff\xfe":1}
  },
  "json-deep": (r, rng) => {
    const depth = rng.pick([64, 500, 2000, 5000]);
    const open = rng.pick(["[", "{\"a\":"]);
    const close = open === "[" ? "]" : "}";
    r.body = enc.encode(`${open.repeat(depth)}1${close.repeat(depth)}`);
  },
  "json-deep-huge": (r, rng) => {
    const depth = rng.pick([10_001, 20_000, 100_000]);
    r.body = enc.encode(rng.chance(0.5) ? "[".repeat(depth) : `${"[".repeat(depth)}${"]".repeat(depth)}`);
  },
  "content-type": (r, rng) => {
    r.headers = r.headers.filter(([n]) => n.toLowerCase() !== "content-type");
    const type = rng.pick([undefined, "text/plain", "application/x-www-form-urlencoded", "multipart/form-data; boundary=x", "application/json; charset=latin1", "application/vnd.api+json; ext=bulk", "application/xml", "*/*", ""]);
    if (type !== undefined) r.headers.push(["Content-Type", type]);
  },
  "body-large": (r, rng) => {
    const size = rng.weighted([[16 * 1024, 8], [128 * 1024, 4], [1024 * 1024, 1]]);
    const kind = rng.int(3);
    if (kind === 0) r.body = enc.encode(JSON.stringify({ ...((r.json as object) ?? {}), padding: "x".repeat(size) }));
    else if (kind === 1) r.body = enc.encode(`[${"1,".repeat(size / 2)}1]`);
    else {
      const bytes = new Uint8Array(size);
      for (let i = 0; i < size; i += 4) bytes[i] = rng.int(256);
      r.body = bytes;
    }
  },
  "number-range": (r, rng) => {
    const text = JSON.stringify(mutateLeaf(r.json ?? {}, rng, () => "@@NUM@@"));
    r.body = enc.encode(text.replace("\"@@NUM@@\"", rng.pick(OUT_OF_RANGE)));
  },
  "type-confusion": (r, rng) => {
    setJson(r, mutateLeaf(r.json ?? {}, rng, (old) => rng.pick<unknown>([null, true, 0, -1, "", "x", [], {}, [old], { v: old }, String(old)])));
  },
  "path-encoded": (r, rng) => {
    const parts = r.path.split("/");
    const at = rng.range(1, Math.max(1, parts.length - 1));
    parts[at] = rng.pick(["%2F", "%00", "%FF", "%2e%2e", "%252F", `${parts[at] ?? ""}%2Fx`, "%E2%80%AE", "%", "%zz", "%C0%AF", encodeURIComponent(rng.pick(UNICODE.slice(0, 6)))]);
    r.path = parts.join("/");
  },
  "path-unicode": (r, rng) => {
    const parts = r.path.split("/");
    const at = rng.range(1, Math.max(1, parts.length - 1));
    parts[at] = `${parts[at] ?? ""}${encodeURIComponent(rng.pick(UNICODE.slice(0, 6)))}`;
    r.path = parts.join("/");
  },
  "path-dots": (r, rng) => {
    r.path = rng.pick([`/..${r.path}`, `${r.path}/..`, `${r.path}/.`, `/./${r.path}`, `${r.path}/../..`, `/%2e%2e${r.path}`]);
  },
  "path-slashes": (r, rng) => {
    r.path = rng.pick([`${r.path}/`, r.path.replace("/", "//").replace(/^\/\//, "/x//"), `${r.path}//`, r.path.replace(/\/([^/]*)$/, "//$1")]);
  },
  "path-leading-double-slash": (r) => {
    r.path = `//${r.path.replace(/^\/+/, "")}`;
  },
  "id-long": (r, rng) => {
    r.path = `${r.path}${rng.string(rng.pick([256, 1024]))}`;
  },
  "path-long": (r, rng) => {
    r.path = `${r.path}/${rng.string(rng.pick([4096, 16 * 1024, 64 * 1024]))}`;
  },
  "query": (r, rng) => {
    const pairs = [
      "list=true", "list=maybe", "page%5Bsize%5D=-1", "page%5Bnumber%5D=1e20", "page%5Bsize%5D=100000", "page[size]=abc",
      "include=workspace,plan,nope", "expanded", "expanded=%ZZ", "ns=other", "dc=dc9", "policy=acl-read", "authmethod=dev-method",
      "filter%5Bstatus%5D=applied", "search%5Bname%5D=%00", "token=x", "x=1&x=2", "%", "==", "a=%F0%9F%92%A5",
    ];
    r.query = [r.query, rng.pick(pairs), rng.chance(0.3) ? rng.pick(pairs) : ""].filter(Boolean).join("&");
  },
  "header-missing": (r, rng) => {
    if (r.headers.length > 0) r.headers.splice(rng.int(r.headers.length), 1);
  },
  "header-duplicated": (r, rng) => {
    if (r.headers.length === 0) return;
    const [name, value] = rng.pick(r.headers);
    r.headers.push([name, rng.chance(0.5) ? value : `${value}x`]);
  },
  "header-oversized": (r, rng) => {
    r.headers.push([rng.pick(["X-Fuzz", "User-Agent", "Cookie", "Accept"]), "v".repeat(rng.pick([1024, 4096, 8000]))]);
  },
  "header-huge": (r, rng) => {
    r.headers.push(["X-Fuzz", "v".repeat(rng.pick([17 * 1024, 40 * 1024, 70 * 1024]))]);
  },
  "header-latin1": (r, rng) => {
    r.headers.push([rng.pick(["X-Fuzz", "Accept-Language"]), "caf\u00e9 \u00ff\u00c0"]);
  },
  "header-internal": (r, rng, ctx) => {
    r.headers.push(["X-HTTP-Method-Override", rng.pick(["LIST", "DELETE", "list"])]);
    if (ctx.profile === "socket" && rng.chance(0.5)) r.headers.push(["Upgrade", "websocket"]);
  },
  "header-forged-method": (r, rng) => {
    if (rng.chance(0.5)) r.headers.push(["Upgrade", "h2c"]);
    r.headers.push(["X-Infra-Doubles-Original-Method", rng.pick(["DELETE", "LIST", "PUT"])]);
  },
};

/** Relative weights of the mutations (default 4): the costly ones are drawn less often. */
const WEIGHTS: Readonly<Record<string, number>> = { "body-large": 1, "json-deep": 2, "id-long": 2, "path-long": 1, "json-deep-huge": 1 };

/**
 * Which mutations each profile may draw (socket-only ones need a raw connection). `header-huge`
 * stays socket-only so that the portable sequences (and the indexes tests name) do not move: the
 * in-process transports answer such heads 431 as the server does (`head-limit.ts`), and heads over
 * the limit reach them through `path-long` and `id-long`.
 */
const PORTABLE = Object.keys(MUTATIONS).filter((m) => m !== "header-forged-method" && m !== "header-huge");
const SOCKET = Object.keys(MUTATIONS);

/** Options of {@link generate}. */
export interface GenerateOptions {
  readonly seed: number;
  readonly index: number;
  readonly endpoints: readonly Endpoint[];
  readonly ids: WorldIds;
  readonly profile: Profile;
}

/**
 * The request at `index` of the run seeded `seed`.
 * @example generate({ seed: 1, index: 42, endpoints, ids: world.ids, profile: "portable" })
 */
export function generate(options: GenerateOptions): FuzzRequest {
  const { seed, index, ids, profile } = options;
  const rng = new Prng(seed, index);
  const e = rng.pick(options.endpoints);
  const tokenClass = rng.weighted<TokenClass>([["privileged", 50], ["under", 15], ["none", 9], ["bogus", 9], ["expired", 8], ["foreign", 9]]);
  let token: string | undefined;
  let auth: [string, string] | undefined;
  if (tokenClass === "foreign") {
    const other = rng.pick((["runs", "accessControl", "secrets"] as const).filter((s) => s !== e.service));
    token = rng.pick(ids.tokens[other].privileged);
    auth = rng.chance(0.5) ? AUTH[e.service](token) : AUTH[other](token);
  } else if (tokenClass !== "none") {
    token = rng.pick(ids.tokens[e.service][tokenClass]);
    auth = AUTH[e.service](token);
  }
  const headers: [string, string][] = [];
  if (auth) headers.push(auth);
  const writes = e.method !== "GET" && e.method !== "HEAD" && e.method !== "LIST" && e.method !== "DELETE";
  const json = writes ? template(e, ids, rng) : undefined;
  if (writes) headers.push(["Content-Type", e.service === "runs" ? "application/vnd.api+json" : "application/json"]);
  const draft: Draft = {
    method: e.method,
    path: concretePath(rng, e, ids),
    query: e.method === "GET" && e.service === "secrets" && rng.chance(0.2) ? "list=true" : "",
    headers,
    json,
    body: json === undefined ? new Uint8Array() : enc.encode(JSON.stringify(json)),
  };
  const mutations: string[] = [];
  if (!rng.chance(0.3)) {
    const names = profile === "socket" ? SOCKET : PORTABLE;
    const count = rng.chance(0.7) ? 1 : 2;
    for (let i = 0; i < count; i++) {
      const name = rng.weighted(names.map((n) => [n, WEIGHTS[n] ?? 4] as const));
      MUTATIONS[name]?.(draft, rng, { profile, service: e.service, token, ids });
      mutations.push(name);
    }
  }
  if (profile === "portable" && /^(get|head)$/i.test(draft.method)) draft.body = new Uint8Array(); // fetch refuses a body there (it upper-cases get and head first)
  if (profile === "socket") {
    draft.framing = rng.weighted<Framing>([["plain", 40], ["split", 15], ["chunked", 15], ["pipelined", 15], ["cl-long", 5], ["cl-bad", 5], ["cl-te", 5]]);
  }
  return {
    index,
    service: e.service,
    base: e.base,
    endpoint: `${e.method} ${e.pattern}`,
    method: draft.method,
    path: draft.path,
    query: draft.query,
    headers: draft.headers,
    body: draft.body,
    tokenClass,
    ...(token !== undefined ? { token } : {}),
    mutations,
    ...(draft.framing ? { framing: draft.framing } : {}),
  };
}

/** One line describing a request, for reports (bodies cut at 300 characters). */
export function describeRequest(r: FuzzRequest): string {
  const body = new TextDecoder().decode(r.body.subarray(0, 300));
  const headers = r.headers.map(([n, v]) => `${n}: ${v.length > 80 ? `${v.slice(0, 80)}...(${v.length})` : v}`).join(" | ");
  const path = r.path.length > 200 ? `${r.path.slice(0, 200)}...(${r.path.length})` : r.path;
  return `${r.method} [${r.service}.${r.base}]${path}${r.query ? `?${r.query}` : ""} token=${r.tokenClass} mutations=${r.mutations.join(",") || "none"}${r.framing ? ` framing=${r.framing}` : ""} headers={${headers}} body(${r.body.length})=${JSON.stringify(body)}`;
}
