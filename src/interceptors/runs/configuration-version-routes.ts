/**
 * Routes of configuration versions and ingress attributes (spec: "Endpoints", "Configuration
 * versions"), plus the archive host's upload and temporary download URLs (on the plugin's
 * `archive` base; no bearer token needed there).
 */
import { pageSizes } from "../../simulator/runs/limits.js";
import type { Route, RouteContext, SimResponse } from "../http.js";
import {
  archiveConfigurationVersion,
  createConfigurationVersion,
  createDownloadLink,
  createRunDownloadLink,
  ingressAttributesOf,
  listConfigurationVersions,
  readDownload,
  uploadArchive,
  visibleConfigurationVersion,
  type UploadResult,
  visibleIngressAttributes,
} from "../../simulator/runs/configuration-versions.js";
import { notFound, RUNS } from "../../simulator/runs/errors.js";
import type { DownloadLink, RunsState } from "../../simulator/runs/state.js";
import type { OperationContext } from "../../simulator/kernel/simulator.js";
import { readAs, updateAs, type Authenticated } from "./context.js";
import { document, includes, noContent, pageRequest, paginate, uniqueResources } from "./json-api.js";
import { CREATE_CONFIGURATION_VERSION_RULES, readAttributes } from "./fields.js";
import { jsonBody, readData } from "./request.js";
import {
  CONFIGURATION_VERSION_INCLUDES,
  configurationVersionIncluded,
  serializeConfigurationVersion,
  serializeIngressAttributes,
  serializeUser,
} from "./serializers.js";

/**
 * Path of upload and download URLs under the archive base.
 * @example
 * `${archiveBase}${ARCHIVE_OBJECT_PATH}/<token>` // an upload-url or a download Location
 */
export const ARCHIVE_OBJECT_PATH = "/v1/object";

function archiveUrl(ctx: RouteContext, token: string): string {
  const base = ctx.mount.bases.archive ?? ctx.mount.bases.api ?? "";
  return `${base.replace(/\/+$/, "")}${ARCHIVE_OBJECT_PATH}/${token}`;
}

function redirectToDownload(ctx: RouteContext, link: (a: Authenticated<OperationContext<RunsState>>) => DownloadLink): SimResponse {
  const token = updateAs(ctx, "download configuration files", (a) => link(a).token);
  return { status: 302, headers: { location: archiveUrl(ctx, token) } };
}

/**
 * The configuration version routes.
 * @example
 * const service = { ...runsHttp, routes: [...configurationVersionRoutes] };
 */
export const configurationVersionRoutes: readonly Route[] = [
  {
    method: "GET",
    path: "/workspaces/:workspace_id/configuration-versions",
    operation: "list configuration versions",
    handler: (ctx) =>
      readAs(ctx, "list configuration versions", ({ sim, caller, out }) => {
        const all = listConfigurationVersions(sim.state, caller, ctx.params.workspace_id ?? "");
        const page = paginate(all, pageRequest(ctx.query, pageSizes(sim)), ctx.request.url);
        return document(200, {
          data: page.items.map((v) => serializeConfigurationVersion(out, v)),
          links: page.links,
          meta: page.meta,
        });
      }),
  },
  {
    method: "POST",
    path: "/workspaces/:workspace_id/configuration-versions",
    operation: "create configuration version",
    handler: (ctx) => {
      const operation = "create configuration version";
      return updateAs(ctx, operation, ({ sim, caller, out }) => {
        const data = readData(jsonBody(ctx.request, operation), CREATE_CONFIGURATION_VERSION_RULES.type, operation, { optional: true });
        const input: { autoQueueRuns?: boolean; speculative?: boolean; provisional?: boolean } = readAttributes(data.attributes, CREATE_CONFIGURATION_VERSION_RULES);
        const version = createConfigurationVersion(sim, caller, ctx.params.workspace_id ?? "", input);
        const uploadUrl = archiveUrl(ctx, version.uploadToken ?? "");
        return document(201, { data: serializeConfigurationVersion(out, version, uploadUrl) });
      });
    },
  },
  {
    method: "GET",
    path: "/configuration-versions/:id",
    operation: "show configuration version",
    handler: (ctx) =>
      readAs(ctx, "show configuration version", ({ sim, caller, out }) => {
        const include = includes(ctx.query, CONFIGURATION_VERSION_INCLUDES);
        const version = visibleConfigurationVersion(sim.state, caller, ctx.params.id ?? "", "show configuration version");
        const included = uniqueResources(configurationVersionIncluded(out, version, include));
        return document(200, { data: serializeConfigurationVersion(out, version), ...(include.size > 0 ? { included } : {}) });
      }),
  },
  {
    method: "GET",
    path: "/configuration-versions/:id/ingress-attributes",
    operation: "show ingress attributes",
    handler: (ctx) =>
      readAs(ctx, "show ingress attributes", ({ sim, caller, out }) =>
        document(200, { data: serializeIngressAttributes(out, ingressAttributesOf(sim.state, caller, ctx.params.id ?? "")) }),
      ),
  },
  {
    method: "GET",
    path: "/ingress-attributes/:id",
    operation: "show ingress attributes",
    handler: (ctx) =>
      readAs(ctx, "show ingress attributes", ({ sim, caller, out }) =>
        document(200, { data: serializeIngressAttributes(out, visibleIngressAttributes(sim.state, caller, ctx.params.id ?? "")) }),
      ),
  },
  {
    method: "GET",
    path: "/ingress-attributes/:id/created-by",
    operation: "show ingress attributes creator",
    handler: (ctx) =>
      readAs(ctx, "show ingress attributes creator", ({ sim, caller, out }) => {
        const ingress = visibleIngressAttributes(sim.state, caller, ctx.params.id ?? "");
        const user = sim.state.users[ingress.createdBy];
        if (user === undefined) throw notFound("show ingress attributes creator", ingress.id);
        return document(200, { data: serializeUser(out, user) });
      }),
  },
  {
    method: "POST",
    path: "/configuration-versions/:id/actions/archive",
    operation: "archive configuration version",
    handler: (ctx) => {
      updateAs(ctx, "archive configuration version", ({ sim, caller }) => archiveConfigurationVersion(sim, caller, ctx.params.id ?? ""));
      return noContent(202);
    },
  },
  {
    method: "GET",
    path: "/configuration-versions/:id/download",
    operation: "download configuration version",
    handler: (ctx) => redirectToDownload(ctx, ({ sim, caller }) => createDownloadLink(sim, caller, ctx.params.id ?? "")),
  },
  {
    method: "GET",
    path: "/runs/:run_id/configuration-version/download",
    operation: "download run configuration version",
    handler: (ctx) => redirectToDownload(ctx, ({ sim, caller }) => createRunDownloadLink(sim, caller, ctx.params.run_id ?? "")),
  },
  {
    method: "PUT",
    base: "archive",
    path: `${ARCHIVE_OBJECT_PATH}/:token`,
    operation: "upload configuration files",
    handler: (ctx) => {
      const result = ctx.sim.update<RunsState, UploadResult>(RUNS, (sim) => uploadArchive(sim, ctx.params.token ?? "", ctx.request.body));
      const read = result.configurationVersion.status !== "errored";
      return { status: 200, headers: {}, ...(read ? { journal: { configurationFiles: result.files } } : {}) };
    },
  },
  {
    method: ["GET", "HEAD"],
    base: "archive",
    path: `${ARCHIVE_OBJECT_PATH}/:token`,
    operation: "download configuration files",
    handler: (ctx) => {
      const bytes = ctx.sim.read<RunsState, Uint8Array>(RUNS, (sim) => readDownload(sim, ctx.params.token ?? ""));
      return {
        status: 200,
        headers: { "content-type": "application/octet-stream", "content-length": String(bytes.length) },
        body: bytes,
      };
    },
  },
];
