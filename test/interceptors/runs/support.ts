/**
 * Shared set-up of the run orchestration contract tests: a started transport with the runs plugin,
 * an organization, a workspace, tokens of each kind, and small request helpers that send JSON:API
 * requests with `fetch`.
 */
import { expect } from "vitest";
import type { DoublesCore } from "../../../src/scenarios/doubles-core.js";
import { configurationArchive } from "../../../src/scenarios/runs/archive.js";
import { runsPlugin } from "../../../src/scenarios/runs/plugin.js";
import type { RunsScenario, WorkspaceOptions } from "../../../src/scenarios/runs/runs-scenario.js";
import type { StartedTransport, TransportHarness } from "../../support/transports.js";

/** A JSON:API response, parsed. */
export interface ApiResponse {
  readonly status: number;
  readonly headers: Headers;
  // Tests read arbitrary JSON:API shapes.
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  readonly body: any;
  readonly text: string;
}

/** A started world for one test. */
export interface RunsWorld {
  readonly t: StartedTransport;
  readonly doubles: DoublesCore;
  readonly runs: RunsScenario;
  readonly base: string;
  readonly archiveBase: string;
  readonly org: string;
  readonly ws: { id: string; name: string; organization: string };
  /** Token of a user with `admin` on `ws`. */
  readonly admin: string;
  /** Token of a user with `write` (apply runs) on `ws`. */
  readonly writer: string;
  /** Token of a user with `plan` (queue plans) on `ws`. */
  readonly planner: string;
  /** Token of a user with `read` on `ws`. */
  readonly reader: string;
  /** Token of a user with no access to `ws`. */
  readonly stranger: string;
  /** User ids by role (`admin`, `writer`, `planner`, `reader`, `stranger`). */
  readonly userIds: Record<string, string>;
  /** The organization's token. */
  readonly orgToken: string;
  /** A site administrator's token. */
  readonly siteAdmin: string;
  /** Sends a request with the given token (or none) and parses the JSON:API answer. */
  api(method: string, path: string, options?: { token?: string | null; body?: unknown; raw?: string; redirect?: RequestRedirect }): Promise<ApiResponse>;
  /** Creates a configuration version, uploads an archive (default: `configurationArchive()`), returns its id (and the run id if one was queued). */
  upload(options?: { workspaceId?: string; token?: string; attributes?: Record<string, unknown>; bytes?: Uint8Array }): Promise<{ cvId: string; runId: string | undefined }>;
  /** Creates a run through the API (201 expected) and returns its id. */
  createRun(attributes?: Record<string, unknown>, options?: { workspaceId?: string; cvId?: string; token?: string }): Promise<string>;
  /** Reads a run through the API (status 200 expected). */
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  getRun(id: string, token?: string): Promise<any>;
  /** Reads the world's workspace through the API (`GET /workspaces/:id`, status 200 expected). */
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  getWorkspace(token?: string): Promise<any>;
}

/** Starts the runs plugin on this transport and builds the standard world. */
export async function startRuns(
  harness: TransportHarness,
  options: { seed?: number | string; workspace?: WorkspaceOptions; host?: string } = {},
): Promise<RunsWorld> {
  // Several worlds in one test need their own hosts under nock (the first interceptor wins).
  const baseUrls = options.host ? { runs: { api: `https://${options.host}/api/v2`, archive: `https://archive.${options.host}` } } : undefined;
  const t = await harness.start([runsPlugin], { seed: options.seed ?? 1, ...(baseUrls ? { baseUrls } : {}) });
  const runs = t.doubles.controlsOf<RunsScenario>("runs");
  const org = runs.addOrganization("acme");
  const ws = runs.addWorkspace(org, { name: "prod", ...options.workspace });
  const userIds: Record<string, string> = {};
  const token = (level: "admin" | "write" | "plan" | "read" | null, name: string, role: string): string => {
    const user = runs.addUser({ username: name, ...(level ? { permissions: { [ws.id]: level } } : {}) });
    userIds[role] = user.id;
    return runs.issueUserToken(user.id);
  };
  const admin = token("admin", "alice", "admin");
  const writer = token("write", "walter", "writer");
  const planner = token("plan", "paula", "planner");
  const reader = token("read", "rita", "reader");
  const stranger = token(null, "sam", "stranger");
  const orgToken = runs.issueOrganizationToken(org);
  const siteAdmin = runs.issueSiteAdminToken({ username: "root" });
  const base = t.base("runs");
  const archiveBase = t.base("runs", "archive");

  const api: RunsWorld["api"] = async (method, path, opts = {}) => {
    const headers: Record<string, string> = { "content-type": "application/vnd.api+json" };
    const bearer = opts.token === undefined ? admin : opts.token;
    if (bearer !== null) headers.authorization = `Bearer ${bearer}`;
    const url = path.startsWith("http") ? path : `${base}${path}`;
    const init: RequestInit = { method, headers, redirect: opts.redirect ?? "follow" };
    if (opts.raw !== undefined) init.body = opts.raw;
    else if (opts.body !== undefined) init.body = JSON.stringify(opts.body);
    const response = await fetch(url, init);
    const text = await response.text();
    let body: unknown;
    try {
      body = text === "" ? undefined : JSON.parse(text);
    } catch {
      body = undefined;
    }
    return { status: response.status, headers: response.headers, body, text };
  };

  const upload: RunsWorld["upload"] = async (o = {}) => {
    const workspaceId = o.workspaceId ?? ws.id;
    const created = await api("POST", `/workspaces/${workspaceId}/configuration-versions`, {
      token: o.token ?? admin,
      body: { data: { type: "configuration-versions", attributes: o.attributes ?? {} } },
    });
    expect(created.status, created.text).toBe(201);
    const put = await fetch(created.body.data.attributes["upload-url"], {
      method: "PUT",
      headers: { "content-type": "application/octet-stream" },
      body: new Uint8Array(o.bytes ?? configurationArchive()),
    });
    expect(put.status).toBe(200);
    const cvId = created.body.data.id as string;
    const latest = runs.runsOf(workspaceId).find((r) => r.configurationVersionId === cvId);
    return { cvId, runId: latest?.id };
  };

  const createRun: RunsWorld["createRun"] = async (attributes = {}, o = {}) => {
    const relationships: Record<string, unknown> = { workspace: { data: { type: "workspaces", id: o.workspaceId ?? ws.id } } };
    if (o.cvId) relationships["configuration-version"] = { data: { type: "configuration-versions", id: o.cvId } };
    const response = await api("POST", "/runs", { token: o.token ?? admin, body: { data: { type: "runs", attributes, relationships } } });
    expect(response.status, response.text).toBe(201);
    return response.body.data.id as string;
  };

  const getRun: RunsWorld["getRun"] = async (id, tok) => {
    const response = await api("GET", `/runs/${id}`, { token: tok ?? admin });
    expect(response.status, response.text).toBe(200);
    return response.body.data;
  };

  const getWorkspace: RunsWorld["getWorkspace"] = async (tok) => {
    const response = await api("GET", `/workspaces/${ws.id}`, { token: tok ?? admin });
    expect(response.status, response.text).toBe(200);
    return response.body.data;
  };

  return { t, doubles: t.doubles, runs, base, archiveBase, org, ws, admin, writer, planner, reader, stranger, userIds, orgToken, siteAdmin, api, upload, createRun, getRun, getWorkspace };
}

/** Asserts a JSON:API error document with the given status and title. */
export function expectError(response: ApiResponse, status: number, title: string, pointer?: string): void {
  expect(response.status, response.text).toBe(status);
  expect(response.headers.get("content-type")).toBe("application/vnd.api+json");
  expect(response.body.errors).toHaveLength(1);
  expect(response.body.errors[0]).toMatchObject({ status: String(status), title });
  if (pointer !== undefined) expect(response.body.errors[0].source).toEqual({ pointer });
}
