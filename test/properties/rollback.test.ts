/**
 * A failed request changes nothing stored, on each service: random sequences of valid and invalid
 * requests through the transport-free handler, and after every answer of 400 or more the whole
 * state (every service, the schedule, the id source, stored bytes; compared as JSON, so key order
 * counts) is what it was before the request. The requests mix writes that succeed (so the state
 * grows and runs move) with writes refused before, in the middle of, or after their first change.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { createDoubles, type Doubles } from "../../src/scenarios/doubles.js";
import { configurationArchive } from "../../src/scenarios/runs/archive.js";

interface Call {
  readonly method: string;
  readonly path: string;
  readonly body?: string | Uint8Array;
}

type Menu = (ids: Record<string, string[]>, pick: number) => Call;

const encode = (body: string | Uint8Array | undefined): Uint8Array => (typeof body === "string" ? new TextEncoder().encode(body) : (body ?? new Uint8Array()));
const choose = <T,>(items: readonly T[], pick: number, fallback: T): T => (items.length === 0 ? fallback : (items[pick % items.length] as T));

function stateOf(doubles: Doubles): string {
  const snapshot = doubles.snapshot();
  return JSON.stringify({ ...snapshot, blobs: Object.keys(snapshot.blobs) });
}

async function check(
  doubles: Doubles,
  base: string,
  headers: Record<string, string>,
  menu: readonly Menu[],
  steps: readonly [number, number, number][],
  ids: Record<string, string[]>,
  remember: (call: Call, status: number, body: string) => void,
): Promise<void> {
  for (const [which, pick, advance] of steps) {
    if (advance > 0) doubles.advance(advance * 1000);
    const call = (menu[which % menu.length] as Menu)(ids, pick);
    doubles.sim.catchUp();
    const before = stateOf(doubles);
    const answer = await doubles.handler.handle({ method: call.method, url: new URL(call.path.startsWith("http") ? call.path : `${base}${call.path}`), headers, body: encode(call.body) });
    const text = answer.body instanceof Uint8Array ? new TextDecoder().decode(answer.body) : String(answer.body ?? "");
    if (answer.status >= 400) {
      expect(stateOf(doubles), `${call.method} ${call.path} -> ${answer.status}`).toBe(before);
    } else remember(call, answer.status, text);
  }
}

const steps = fc.array(fc.tuple(fc.nat(), fc.nat(), fc.oneof({ weight: 4, arbitrary: fc.constant(0) }, { weight: 1, arbitrary: fc.integer({ min: 1, max: 120 }) })), { minLength: 5, maxLength: 40 });

describe("a failed request changes nothing stored (whole state compared)", () => {
  it("run orchestration", async () => {
    await fc.assert(
      fc.asyncProperty(steps, async (sequence) => {
        const doubles = createDoubles({ seed: 3 });
        const { runs } = doubles;
        const ws = runs.addWorkspace(runs.addOrganization("acme"), { name: "prod" });
        const other = runs.addWorkspace("acme", { name: "other", autoApply: true });
        const admin = runs.addUser({ permissions: { [ws.id]: "admin", [other.id]: "plan" } });
        const token = runs.issueUserToken(admin.id);
        runs.uploadConfiguration(ws.id, { as: admin.id, autoQueueRuns: false });
        const api = doubles.baseUrls().runs.api;
        const ids: Record<string, string[]> = { ws: [ws.id, other.id, "ws-missing"], runs: ["run-missing"], uploads: [] };
        const archive = configurationArchive();
        const runBody = (wsId: string, attributes: Record<string, unknown>) =>
          JSON.stringify({ data: { type: "runs", attributes, relationships: { workspace: { data: { type: "workspaces", id: wsId } } } } });
        const attributeChoices: Record<string, unknown>[] = [
          {},
          { "plan-only": true },
          { "is-destroy": true, "refresh-only": true },
          { "save-plan": true, "plan-only": true },
          { "engine-version": "0.0.1" },
          { "auto-apply": true, message: "go" },
          { "save-plan": true },
        ];
        const actions = ["apply", "discard", "cancel", "force-cancel", "force-execute"];
        const menu: Menu[] = [
          (i, p) => ({ method: "POST", path: "/runs", body: runBody(choose(i.ws ?? [], p, ws.id), choose(attributeChoices, p >> 3, {})) }),
          (i, p) => ({ method: "POST", path: "/runs", body: p % 5 === 0 ? "{not json" : runBody(ws.id, {}) }),
          (i, p) => ({ method: "POST", path: `/runs/${choose(i.runs ?? [], p, "run-missing")}/actions/${choose(actions, p >> 2, "apply")}`, body: "{}" }),
          (i, p) => ({ method: "POST", path: `/workspaces/${choose(i.ws ?? [], p, ws.id)}/configuration-versions`, body: JSON.stringify({ data: { type: "configuration-versions", attributes: { "auto-queue-runs": p % 2 === 0 } } }) }),
          (i, p) => ({ method: "PUT", path: choose(i.uploads ?? [], p, `${doubles.baseUrls().runs.archive}/missing`), body: p % 3 === 0 ? new Uint8Array([1, 2, 3]) : archive }),
        ];
        const remember = (_call: Call, _status: number, body: string) => {
          if (!body.startsWith("{")) return;
          const data = (JSON.parse(body) as { data?: { id?: string; type?: string; attributes?: Record<string, unknown> } }).data;
          if (data?.type === "runs" && data.id !== undefined) ids.runs?.push(data.id);
          const upload = data?.attributes?.["upload-url"];
          if (typeof upload === "string") ids.uploads?.push(upload);
        };
        const headers = { authorization: `Bearer ${token}`, "content-type": "application/vnd.api+json" };
        await check(doubles, api, headers, menu, sequence, ids, remember);
      }),
      { numRuns: 25 },
    );
  });

  it("access control", async () => {
    await fc.assert(
      fc.asyncProperty(steps, async (sequence) => {
        const doubles = createDoubles({ seed: 4 });
        const acl = doubles.accessControl;
        acl.createPolicy({ name: "acl-read", rules: 'acl = "read"' });
        acl.createAuthMethod({ name: "k8s", type: "kubernetes" });
        acl.registerBearerToken("k8s", "jwt", { name: "web", namespace: "default" });
        const ids: Record<string, string[]> = { tokens: [acl.createToken({ description: "first" }).accessorId, "00000000-0000-4000-8000-000000000000"], rules: ["nope"] };
        const bodies = [
          '{"Description":"t","Policies":[{"Name":"acl-read"}]}',
          '{"Policies":[{"Name":"missing"}]}',
          '{"ExpirationTTL":"5m"}',
          '{"ExpirationTTL":"-1s"}',
          '{"ServiceIdentities":[{"ServiceName":"web"}],"Local":true}',
          "{broken",
          '{"AccessorID":"not-a-uuid"}',
        ];
        const menu: Menu[] = [
          (_i, p) => ({ method: "PUT", path: "/acl/token", body: choose(bodies, p, "{}") }),
          (i, p) => ({ method: "PUT", path: `/acl/token/${choose(i.tokens ?? [], p, "x")}`, body: choose(bodies, p >> 2, "{}") }),
          (i, p) => ({ method: "DELETE", path: `/acl/token/${choose(i.tokens ?? [], p, "x")}` }),
          (i, p) => ({ method: "PUT", path: `/acl/token/${choose(i.tokens ?? [], p, "x")}/clone`, body: "{}" }),
          (_i, p) => ({ method: "PUT", path: "/acl/binding-rule", body: JSON.stringify({ AuthMethod: choose(["k8s", "nope"], p, "k8s"), BindType: choose(["service", "x"], p >> 1, "service"), BindName: "${serviceaccount.name}", Selector: choose(["", "serviceaccount.name == web", "(("], p >> 2, "") }) }),
          (_i, p) => ({ method: "POST", path: "/acl/login", body: JSON.stringify({ AuthMethod: "k8s", BearerToken: choose(["jwt", "nope"], p, "jwt") }) }),
        ];
        const remember = (_call: Call, _status: number, body: string) => {
          if (!body.startsWith("{")) return;
          const parsed = JSON.parse(body) as { AccessorID?: string; ID?: string };
          if (parsed.AccessorID !== undefined) ids.tokens?.push(parsed.AccessorID);
          if (parsed.ID !== undefined) ids.rules?.push(parsed.ID);
        };
        const headers = { "x-acl-token": acl.bootstrapToken.secretId, "content-type": "application/json" };
        await check(doubles, doubles.baseUrls().accessControl.api, headers, menu, sequence, ids, remember);
      }),
      { numRuns: 25 },
    );
  });

  it("secrets", async () => {
    await fc.assert(
      fc.asyncProperty(steps, async (sequence) => {
        const doubles = createDoubles({ seed: 5 });
        const root = doubles.secrets.rootToken;
        const ids: Record<string, string[]> = { mounts: ["ssh", "nowhere"], roles: ["r1", "missing"] };
        const menu: Menu[] = [
          (_i, p) => ({ method: "POST", path: `/sys/mounts/${choose(["ssh", "ssh2", "ssh3", ""], p, "ssh2")}`, body: JSON.stringify({ type: choose(["ssh", "nope"], p >> 2, "ssh") }) }),
          (i, p) => ({ method: "DELETE", path: `/sys/mounts/${choose(i.mounts ?? [], p, "x")}` }),
          (i, p) => ({ method: "POST", path: `/sys/mounts/${choose(i.mounts ?? [], p, "x")}/tune`, body: JSON.stringify({ allowed_managed_keys: choose(["k1,k2", 5], p >> 1, "k1") }) }),
          (i, p) => ({ method: "POST", path: `/ssh/roles/${choose(i.roles ?? [], p, "r1")}`, body: JSON.stringify({ key_type: choose(["ca", "otp", "bogus"], p >> 1, "ca"), default_user: "u", allowed_users: "*", ttl: choose(["1h", "nonsense"], p >> 3, "1h") }) }),
          (_i, p) => ({ method: "POST", path: "/ssh/config/ca", body: JSON.stringify({ generate_signing_key: p % 2 === 0, key_type: choose(["ssh-ed25519", "bogus"], p >> 1, "ssh-ed25519") }) }),
          (i, p) => ({ method: "POST", path: `/ssh/sign/${choose(i.roles ?? [], p, "r1")}`, body: JSON.stringify({ public_key: "ssh-ed25519 AAAA" }) }),
          (_i, p) => ({ method: "POST", path: "/auth/token/create", body: JSON.stringify({ policies: choose([["default"], "nope"], p, ["default"]), ttl: choose(["1h", "bad"], p >> 1, "1h") }) }),
        ];
        const remember = (call: Call) => {
          const mount = /^\/sys\/mounts\/([^/]+)$/.exec(call.path);
          if (call.method === "POST" && mount?.[1] !== undefined) ids.mounts?.push(mount[1]);
        };
        const headers = { "x-secrets-token": root, "content-type": "application/json" };
        await check(doubles, doubles.baseUrls().secrets.api, headers, menu, sequence, ids, remember);
      }),
      { numRuns: 15 },
    );
  });
});
