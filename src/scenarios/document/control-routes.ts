/**
 * The dev server's `/_sim/` routes for every fixture of every service, built on scenario documents:
 * each route's body is one fixture of a document section (validated by the same schema, loaded by
 * the same loader), so a curl user gets exactly what a document or a TypeScript test gets. Plus
 * `POST /_sim/scenario`, which loads a whole document (JSON or YAML by content type).
 *
 * Body shapes in `GET /_sim/` come from the generated schema's definitions, not from a hand list.
 */
import { isYamlType } from "../../interceptors/control.js";
import { bodyText, empty, json, type Route } from "../../interceptors/http.js";
import { UsageError } from "../../simulator/kernel/errors.js";
import { SECRETS } from "../../simulator/secrets/errors.js";
import { managedKeyView } from "../../simulator/secrets/managed-keys.js";
import type { SecretsState } from "../../simulator/secrets/state.js";
import { cloudScenario } from "../secrets/cloud/cloud-scenario.js";
import { sshScenario } from "../secrets/ssh/ssh-scenario.js";
import { ScenarioDocumentError } from "./errors.js";
import { loadScenario, type LoadedScenario, type ScenarioNames, type ScenarioTarget } from "./load.js";
import { NameResolver } from "./target.js";
import { parseScenarioText } from "./parse.js";
import type { ScenarioDocument } from "./types.js";
import { scenarioSchema } from "./validate.js";
import { nextTurn } from "../../interceptors/event-loop.js";

type Json = Record<string, unknown>;

/** A fixture route: where it lives, which document section its body is, what it answers. */
interface FixtureRoute {
  readonly service: "runs" | "accessControl" | "secrets";
  readonly path: string;
  /** The document section under the service (`policies`); a list unless `single`. */
  readonly section: string;
  /** The schema definition of one item (for the listed body shape). */
  readonly definition: string;
  readonly single?: boolean;
  /** The body's shape when it is not one section item (listed as is). */
  readonly bodyShape?: string;
  /** Fills in what the route lets a curl user leave out (a document name for tokens). */
  readonly prepare?: (body: Json) => unknown;
  readonly answer: string;
  /** Reads what `respond` compares with, before the fixture is made. */
  readonly before?: (target: ScenarioTarget) => unknown;
  readonly respond: (target: ScenarioTarget, names: ScenarioNames, body: Json, before: unknown) => unknown;
}

/** Ids of every MFA method (unnamed methods have only their id). */
function mfaMethodIds(target: ScenarioTarget): string[] {
  return target.sim.read<SecretsState, string[]>(SECRETS, (ctx) => Object.keys(ctx.state.mfaMethods));
}

const UNNAMED = "token";

const withName = (body: Json): Json => ({ ...body, name: typeof body.name === "string" ? body.name : UNNAMED });

const FIXTURE_ROUTES: readonly FixtureRoute[] = [
  {
    service: "runs",
    path: "/teams",
    section: "teams",
    definition: "RunsTeamFixture",
    answer: '201 {"id", "name", "organization"}',
    respond: (_t, names) => {
      const [key, id] = Object.entries(names.runs.teams)[0] ?? ["", ""];
      return { id, name: key.slice(key.indexOf("/") + 1), organization: key.slice(0, key.indexOf("/")) };
    },
  },
  {
    service: "runs",
    path: "/tokens",
    section: "tokens",
    definition: "RunsTokenFixture",
    prepare: withName,
    answer: '201 {"token"}: the bearer value',
    respond: (_t, names) => ({ token: Object.values(names.runs.tokens)[0] }),
  },
  {
    service: "accessControl",
    path: "/settings",
    section: "settings",
    single: true,
    definition: "AccessControlSettingsPatch",
    answer: "200 the settings",
    respond: (t) => t.accessControl.settings,
  },
  {
    service: "accessControl",
    path: "/namespaces",
    section: "namespaces",
    definition: "AccessControlNamespaceFixture",
    answer: '201 {"name"}',
    respond: (_t, _n, body) => ({ name: body.name }),
  },
  {
    service: "accessControl",
    path: "/policies",
    section: "policies",
    definition: "PolicyInput",
    answer: "201 the policy (id, name, rules, ...)",
    respond: (t, _n, body) => t.accessControl.policy(String(body.name), typeof body.namespace === "string" ? body.namespace : undefined),
  },
  {
    service: "accessControl",
    path: "/roles",
    section: "roles",
    definition: "AccessControlRoleFixture",
    answer: "201 the role (id, name, policies, ...)",
    respond: (t, _n, body) => t.accessControl.role(String(body.name), typeof body.namespace === "string" ? body.namespace : undefined),
  },
  {
    service: "accessControl",
    path: "/auth-methods",
    section: "authMethods",
    definition: "AccessControlAuthMethodFixture",
    answer: "201 the auth method",
    respond: (t, _n, body) => t.accessControl.authMethod(String(body.name), typeof body.namespace === "string" ? body.namespace : undefined),
  },
  {
    service: "accessControl",
    path: "/binding-rules",
    section: "bindingRules",
    definition: "AccessControlBindingRuleFixture",
    answer: '201 {"bindingRules": [...]}: the auth method\'s rules, the new one included',
    respond: (t, _n, body) => ({ bindingRules: t.accessControl.bindingRules().filter((r) => r.authMethod === body.authMethod) }),
  },
  {
    service: "accessControl",
    path: "/tokens",
    section: "tokens",
    definition: "AccessControlTokenFixture",
    prepare: withName,
    answer: '201 the token, SecretID shown ({"accessorId", "secretId", "policies", "roles", "expirationTime", ...})',
    respond: (t, names) => t.accessControl.token(Object.values(names.accessControl.tokens)[0]?.accessorId ?? ""),
  },
  {
    service: "secrets",
    path: "/namespaces",
    section: "namespaces",
    definition: "",
    bodyShape: '{"path": string} (e.g. "ns1" or "ns1/ns2")',
    prepare: (body) => body.path,
    answer: '201 {"path"}',
    respond: (_t, _n, body) => ({ path: body.path }),
  },
  {
    service: "secrets",
    path: "/mounts",
    section: "mounts",
    definition: "SecretsMountFixture",
    answer: '201 {"path", "type", "description", "allowedManagedKeys"}',
    respond: (t, _n, body) => t.secrets.mounts().find((m) => m.path === String(body.path).replace(/^\/+|\/+$/g, "")),
  },
  {
    service: "secrets",
    path: "/policies",
    section: "policies",
    definition: "SecretsPolicyFixture",
    answer: '201 {"name"}',
    respond: (_t, _n, body) => ({ name: body.name }),
  },
  {
    service: "secrets",
    path: "/tokens",
    section: "tokens",
    definition: "SecretsTokenFixture",
    prepare: withName,
    answer: '201 {"token", "accessor", "policies", "expiresAt"}: send token as X-Secrets-Token',
    respond: (t, names) => {
      const secret = Object.values(names.secrets.tokens)[0] ?? "";
      return t.sim.read<SecretsState, unknown>(SECRETS, (ctx) => {
        const record = ctx.state.tokens[secret];
        return record === undefined ? undefined : { token: record.id, accessor: record.accessor, policies: record.policies, expiresAt: record.expiresAt };
      });
    },
  },
  {
    service: "secrets",
    path: "/ssh",
    section: "ssh",
    definition: "SshFixture",
    answer: '201 {"mount", "caPublicKey", "roles": [...]}',
    respond: (t, _n, body) => {
      const mount = typeof body.mount === "string" ? body.mount : "ssh";
      const ssh = sshScenario(t.secrets, mount);
      const roles = t.secrets.readMount<{ roles: Record<string, unknown> }, string[]>(mount, (ctx) => Object.keys(ctx.mount.roles).sort());
      return { mount, caPublicKey: ssh.caPublicKey() ?? null, roles };
    },
  },
  {
    service: "secrets",
    path: "/cloud",
    section: "cloud",
    definition: "CloudFixture",
    answer: '201 {"mount", "rootUser", "roles": {name: role}, "staticRoles": {name: {"username", "accessKeyId", "rotatesAt", ...}}}',
    respond: (t, _n, body) => {
      const mount = typeof body.mount === "string" ? body.mount : "cloud";
      const cloud = cloudScenario(t.secrets, mount);
      const names = (key: string): string[] => Object.keys((body[key] ?? {}) as Json);
      return {
        mount,
        rootUser: cloud.rootUser()?.userName ?? null,
        roles: Object.fromEntries(names("roles").map((name) => [name, cloud.role(name) ?? null])),
        staticRoles: Object.fromEntries(names("staticRoles").map((name) => [name, cloud.staticRole(name) ?? null])),
      };
    },
  },
  { service: "secrets", path: "/backend-keys", section: "backendKeys", definition: "BackendKeyFixture", answer: '201 {"ok": true}', respond: () => ({ ok: true }) },
  {
    service: "secrets",
    path: "/server-environment",
    section: "serverEnvironment",
    single: true,
    definition: "SecretsServerEnvironmentFixture",
    answer: '200 {"ok": true}: replaces the previous environment',
    respond: () => ({ ok: true }),
  },
  {
    service: "secrets",
    path: "/managed-keys",
    section: "managedKeys",
    definition: "ManagedKeyFixture",
    answer: "201 the key's read form, as GET /v1/sys/managed-keys/:type/:name answers its data (UUID, pin redacted, ...)",
    respond: (t, _n, body) => {
      const key = t.secrets.managedKey(String(body.name));
      return key === undefined ? null : managedKeyView(key);
    },
  },
  {
    service: "secrets",
    path: "/mfa-methods",
    section: "mfaMethods",
    definition: "SecretsMfaMethodFixture",
    answer: '201 {"id"}',
    before: (t) => mfaMethodIds(t),
    respond: (t, _n, _b, before) => ({ id: mfaMethodIds(t).find((id) => !(before as string[]).includes(id)) ?? null }),
  },
  {
    service: "secrets",
    path: "/auth-mounts",
    section: "authMounts",
    definition: "SecretsAuthMountFixture",
    answer: '201 {"accessor"}',
    respond: (_t, names) => ({ accessor: Object.values(names.secrets.authMounts)[0] }),
  },
  { service: "secrets", path: "/identity-entities", section: "identityEntities", definition: "SecretsIdentityFixture", answer: '201 {"id"}', respond: (_t, names) => ({ id: Object.values(names.secrets.identityEntities)[0] }) },
  { service: "secrets", path: "/identity-groups", section: "identityGroups", definition: "SecretsIdentityFixture", answer: '201 {"id"}', respond: (_t, names) => ({ id: Object.values(names.secrets.identityGroups)[0] }) },
  {
    service: "secrets",
    path: "/login-enforcements",
    section: "loginEnforcements",
    definition: "LoginEnforcementFixture",
    answer: "201 the enforcement's read form (id, name, mfa_method_ids, auth_method_accessors, ...); fixtures named by name, id or accessor",
    respond: (t, names, body) => t.secrets.loginEnforcement(String(body.name), typeof body.namespace === "string" ? body.namespace : undefined) ?? { id: names.secrets.loginEnforcements[String(body.name)] },
  },
];

/** A JSON object body (`{}` when empty). */
function jsonBody(text: string): Json {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text === "" ? "{}" : text);
  } catch (error) {
    throw new UsageError(`the body must be a JSON object: ${(error as Error).message}`);
  }
  if (parsed === null || typeof parsed !== "object" || Array.isArray(parsed)) throw new UsageError("the body must be a JSON object");
  return parsed as Json;
}

/** Re-raises a document error with pointers relative to the body (`/accessControl/policies/0/name` -> `/name`). */
function relative(error: unknown, prefix: string): never {
  if (!(error instanceof ScenarioDocumentError)) throw error;
  const lines = error.problems.map((p) => `${p.path.startsWith(prefix) ? p.path.slice(prefix.length) || "(body)" : p.path}: ${p.expected}`);
  throw new UsageError(lines.join("; "));
}

/** A compact shape of a schema definition: `{"name": string, "rules"?: string, ...}`. */
function shapeOf(definition: string): string {
  const definitions = (scenarioSchema().definitions ?? {}) as Record<string, Json>;
  const label = (schema: Json | undefined, depth: number): string => {
    if (schema === undefined) return "any";
    if (typeof schema.$ref === "string") {
      const name = schema.$ref.replace("#/definitions/", "");
      const target = definitions[name];
      return target !== undefined && (target.enum !== undefined || target.type !== "object" || depth === 0) ? label(target, depth + 1) : name;
    }
    if (Array.isArray(schema.enum)) return schema.enum.map((v) => JSON.stringify(v)).join(" | ");
    if (Array.isArray(schema.anyOf)) return (schema.anyOf as Json[]).map((s) => label(s, depth + 1)).join(" | ");
    if (schema.type === "array") return `[${label(schema.items as Json | undefined, depth + 1)}]`;
    if (Array.isArray(schema.type)) return schema.type.join(" | ");
    if (schema.type === "object" && schema.properties !== undefined && depth <= 1) {
      const required = new Set((schema.required as string[] | undefined) ?? []);
      const fields = Object.entries(schema.properties as Record<string, Json>).map(([name, sub]) => `"${name}"${required.has(name) ? "" : "?"}: ${label(sub, depth + 1)}`);
      return `{${fields.join(", ")}}`;
    }
    if (schema.type === "object") return "object";
    return typeof schema.type === "string" ? schema.type : "any";
  };
  return label(definitions[definition] ?? { $ref: `#/definitions/${definition}` }, 0);
}

/** A route doc whose body shape is read from the schema when `GET /_sim/` lists it. */
function lazyDoc(definition: string, answer: string): Route["doc"] {
  let body: string | undefined;
  return {
    get body() {
      body ??= shapeOf(definition);
      return body;
    },
    answer,
  };
}

/**
 * The fixture routes of one service (`/_sim/<key>/...`, relative paths), for `Doubles`:
 * POST a fixture, in the shape of one item of the matching scenario document section.
 * @example documentControlRoutes(doubles, "accessControl").map((r) => r.path) // ["/settings", "/namespaces", "/policies", ...]
 */
export function documentControlRoutes(target: ScenarioTarget, service: "runs" | "accessControl" | "secrets"): Route[] {
  const routes: Route[] = FIXTURE_ROUTES.filter((r) => r.service === service).map((fixture) => ({
    method: "POST",
    path: fixture.path,
    doc: fixture.bodyShape === undefined ? lazyDoc(fixture.definition, fixture.answer) : { body: fixture.bodyShape, answer: fixture.answer },
    handler: ({ request }) => {
      const body = jsonBody(bodyText(request));
      const item = fixture.prepare?.(body) ?? body;
      const document = { [service]: { [fixture.section]: fixture.single ? item : [item] } } as ScenarioDocument;
      const before = fixture.before?.(target);
      let names: ScenarioNames;
      try {
        names = loadScenario(target, document).names;
      } catch (error) {
        relative(error, `/${service}/${fixture.section}${fixture.single ? "" : "/0"}`);
      }
      return json(fixture.single ? 200 : 201, fixture.respond(target, names, body, before) ?? null);
    },
  }));
  if (service === "accessControl") {
    routes.push(
      {
        method: "GET",
        path: "/bootstrap-token",
        doc: { answer: '200 {"accessorId", "secretId"}: full access (send secretId as X-Acl-Token)' },
        handler: () => json(200, target.accessControl.bootstrapToken),
      },
      {
        method: "POST",
        path: "/bootstrap-reset",
        doc: { answer: '200 {"resetIndex"}: the next PUT /v1/acl/bootstrap succeeds once (as the real reset file allows)' },
        handler: () => json(200, { resetIndex: target.accessControl.resetBootstrap() }),
      },
      {
        method: "DELETE",
        path: "/tokens/:accessor_id",
        doc: { answer: "204, the token deleted (also when it did not exist)" },
        handler: ({ params }) => {
          target.accessControl.deleteToken(params.accessor_id ?? "");
          return empty(204);
        },
      },
    );
  }
  if (service === "secrets") {
    routes.push({
      method: "DELETE",
      path: "/tokens/:token",
      doc: { answer: "204, the token revoked (requests with it get 403)" },
      handler: ({ params }) => {
        target.secrets.revokeToken(params.token ?? "");
        return empty(204);
      },
    });
  }
  if (service === "runs") {
    routes.push(
      {
        method: "DELETE",
        path: "/tokens/:token",
        doc: { answer: "204, the token revoked (requests bearing it get 401; also when it did not exist)" },
        handler: ({ params }) => {
          target.runs.revokeToken(params.token ?? "");
          return empty(204);
        },
      },
      {
        method: "POST",
        path: "/grants",
        doc: lazyDoc("GrantStep", '200 {"workspace", "permissions"}: the workspace id and its grants by user or team id'),
        handler: ({ request }) => {
          const body = jsonBody(bodyText(request));
          let workspaceId = "";
          try {
            const loaded = loadScenario(target, { timeline: [{ grant: body }] } as unknown as ScenarioDocument);
            loaded.play();
            workspaceId = new NameResolver(target, loaded.names).workspace(String(body.workspace), ["workspace"]);
          } catch (error) {
            relative(error, "/timeline/0/grant");
          }
          return json(200, { workspace: workspaceId, permissions: target.runs.workspace(workspaceId).permissions });
        },
      },
    );
    for (const [path, step, answer] of [
      ["/configuration-versions", "uploadConfiguration", "UploadConfigurationStep"],
      ["/runs", "queueRun", "QueueRunStep"],
    ] as const) {
      routes.push({
        method: "POST",
        path,
        doc: lazyDoc(answer, '201 the run it queued, as runs.run(id) reads it (null when none was queued)'),
        handler: ({ request }) => {
          const body = { ...jsonBody(bodyText(request)), name: "run" };
          let runId: string | undefined;
          try {
            const loaded = loadScenario(target, { timeline: [{ [step]: body }] } as ScenarioDocument);
            loaded.play();
            runId = loaded.names.runs.runs.run;
          } catch (error) {
            relative(error, `/timeline/0/${step}`);
          }
          return json(201, runId === undefined ? null : target.runs.run(runId));
        },
      });
    }
  }
  return routes;
}

/**
 * The most timeline steps `POST /_sim/scenario` takes: 10,000. Checking and loading a document is
 * synchronous (about 10 us a step), so a longer timeline is refused whole (400, pointer
 * `/timeline`) rather than holding every other request up; `infra-doubles run FILE` and
 * `doubles.load()` take timelines of any length.
 */
export const MAX_POSTED_TIMELINE_STEPS = 10_000;

/** Steps `?play=true` plays between two turns of the event loop (about 3 ms of work). */
const PLAY_SLICE_STEPS = 100;

/**
 * `POST /_sim/scenario`: loads a scenario document from a JSON body or a YAML one
 * (`Content-Type: application/yaml`); with `?play=true` also plays its timeline, a slice of
 * steps at a time, answering other requests between slices.
 * Answers 201 `{"names": ..., "transcript"?: {"ok", "passed", "failed", "lines"}}`, or 400 with
 * the JSON pointer and what was expected for a document that does not fit, or whose timeline has
 * more than {@link MAX_POSTED_TIMELINE_STEPS} steps.
 * @example // curl -H 'content-type: application/yaml' --data-binary @world.yaml $URL/_sim/scenario
 */
export function scenarioControlRoutes(target: ScenarioTarget): Route[] {
  return [
    {
      method: "POST",
      path: "/",
      doc: {
        body: `a scenario document (JSON, or YAML with Content-Type: application/yaml; at most 8 MiB and ${MAX_POSTED_TIMELINE_STEPS} timeline steps); ?play=true plays its timeline`,
        answer: '201 {"names": {...}, "transcript"?: {"ok", "passed", "failed", "lines"}}; 400 where the document does not fit and what was expected',
      },
      handler: async ({ request, query }) => {
        const text = bodyText(request);
        const format = isYamlType(request.headers["content-type"]) ? "yaml" : "json";
        const document = parseScenarioText(text, format);
        const timeline = typeof document === "object" && document !== null ? (document as { timeline?: unknown }).timeline : undefined;
        if (Array.isArray(timeline) && timeline.length > MAX_POSTED_TIMELINE_STEPS) {
          throw new ScenarioDocumentError("schema", [
            {
              path: "/timeline",
              expected: `at most ${MAX_POSTED_TIMELINE_STEPS} steps in a document posted to the server (got ${timeline.length}); post it in parts, or play it with infra-doubles run FILE or doubles.load(document).play()`,
            },
          ]);
        }
        const loaded = loadScenario(target, document);
        const play = query.get("play")?.toLowerCase() === "true";
        const transcript = play ? await playInSlices(loaded) : undefined;
        return json(201, {
          names: loaded.names,
          ...(transcript === undefined ? {} : { transcript }),
        });
      },
    },
  ];
}

/** Plays a loaded document's timeline {@link PLAY_SLICE_STEPS} steps at a time, yielding to the event loop between slices. */
async function playInSlices(loaded: LoadedScenario): Promise<{ ok: boolean; passed: number; failed: number; lines: string[] }> {
  const lines: string[] = [];
  let passed = 0;
  let failed = 0;
  for (;;) {
    const part = loaded.play({ maxSteps: PLAY_SLICE_STEPS });
    if (part.steps.length === 0) break;
    for (const line of part.lines) lines.push(line);
    passed += part.passed;
    failed += part.failed;
    await nextTurn();
  }
  return { ok: failed === 0, passed, failed, lines };
}
