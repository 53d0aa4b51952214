/**
 * The access-control service's HTTP face: its route table and its one error function.
 * Mounted at a base ending in `/v1` (e.g. `https://access-control.test/v1`); every route is
 * under `/acl/`.
 */
import { ACCESS_CONTROL } from "../../simulator/access-control/state.js";
import type { HttpService } from "../http.js";
import { accessControlErrorResponse, accessControlNoRoute } from "./errors.js";
import { accessControlRoutes } from "./routes.js";

/**
 * The access-control {@link HttpService}.
 * @example createHandler({ sim, mounts: [{ service: accessControlHttp, bases: { api: "https://access-control.test/v1" } }] })
 */
export const accessControlHttp: HttpService = {
  name: ACCESS_CONTROL,
  routes: accessControlRoutes,
  errorResponse: accessControlErrorResponse,
  noRoute: accessControlNoRoute,
};
