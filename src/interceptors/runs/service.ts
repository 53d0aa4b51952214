/**
 * The run orchestration service's HTTP face: its route table (configuration versions, runs,
 * engine versions, the archive host, and the organization, workspace, account and ping reads real
 * clients make) and its one error renderer.
 */
import type { HttpService } from "../http.js";
import { RUNS } from "../../simulator/runs/errors.js";
import { configurationVersionRoutes } from "./configuration-version-routes.js";
import { engineVersionRoutes } from "./engine-version-routes.js";
import { errorDocument, runsErrorResponse, runsNoRoute } from "./errors.js";
import { runRoutes } from "./run-routes.js";
import { workspaceRoutes } from "./workspace-routes.js";
import { RUNS_FAULT_ANSWERS } from "./fault-answers.js";
import { RUNS_ANSWERS } from "./answers.js";

/**
 * The longest request body the fake reads, API documents and archive uploads alike: 32 MiB (the
 * real service's front end limits bodies but publishes no figure; docs/decisions/security.md).
 */
export const RUNS_MAX_REQUEST_BYTES = 32 * 1024 * 1024;

/**
 * The run orchestration {@link HttpService}. Mount it with bases `api` (ends with `/api/v2`) and
 * `archive` (upload and download URLs).
 * @example createHandler({ sim, mounts: [{ service: runsHttp, bases: { api: "https://app.run-orchestration.test/api/v2", archive: "https://archivist.run-orchestration.test" } }] })
 */
export const runsHttp: HttpService = {
  name: RUNS,
  routes: [...configurationVersionRoutes, ...runRoutes, ...engineVersionRoutes, ...workspaceRoutes],
  errorResponse: runsErrorResponse,
  faultAnswers: RUNS_FAULT_ANSWERS,
  answerTable: RUNS_ANSWERS,
  noRoute: runsNoRoute,
  bodyLimit: {
    maxBytes: RUNS_MAX_REQUEST_BYTES,
    tooLarge: () => errorDocument(413, { title: "request entity too large" }),
  },
};
