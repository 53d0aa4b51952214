/**
 * The access-control service's HTTP face: its route table and its one error function.
 * Mounted at a base ending in `/v1` (e.g. `https://access-control.test/v1`); every route is
 * under `/acl/`.
 */
import { ACCESS_CONTROL } from "../../simulator/access-control/state.js";
import type { HttpService } from "../http.js";
import { accessControlErrorResponse, accessControlNoRoute, text } from "./errors.js";
import { ACCESS_CONTROL_ANSWERS } from "./answers.js";
import { ACCESS_CONTROL_ENDPOINTS, accessControlRoutes } from "./routes.js";
import { ACCESS_CONTROL_FAULT_ANSWERS } from "./fault-answers.js";

/**
 * The longest request body the fake reads: 32 MiB. The real service's decoder reads any length
 * (only its KV store, not simulated, limits values); the fake bounds memory and answers a longer
 * body as the real one answers a body its decoder cannot read (docs/decisions/security.md).
 */
export const ACCESS_CONTROL_MAX_REQUEST_BYTES = 32 * 1024 * 1024;

/**
 * The access-control {@link HttpService}.
 * @example createHandler({ sim, mounts: [{ service: accessControlHttp, bases: { api: "https://access-control.test/v1" } }] })
 */
export const accessControlHttp: HttpService = {
  name: ACCESS_CONTROL,
  routes: accessControlRoutes,
  errorResponse: accessControlErrorResponse,
  faultAnswers: ACCESS_CONTROL_FAULT_ANSWERS,
  answerTable: ACCESS_CONTROL_ANSWERS,
  noRoute: accessControlNoRoute,
  endpoints: () => ACCESS_CONTROL_ENDPOINTS,
  bodyLimit: {
    maxBytes: ACCESS_CONTROL_MAX_REQUEST_BYTES,
    tooLarge: () => text(400, "Request decode failed: http: request body too large"),
  },
};
