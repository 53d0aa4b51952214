/**
 * `GET` and `HEAD /sys/health` (unauthenticated, root namespace only, answers in every node state).
 *
 * Follows the real handler: `standbyok` / `perfstandbyok` parse as Go booleans and the `*code`
 * parameters as Go integers; a bad value is a 400 (`{"errors":[]}` for GET, no body for HEAD). HEAD
 * answers the same code with no body. Codes outside 200-599 are refused with 400 (HTTP clients
 * cannot take them as final answers); 204, 205 and 304 carry no body.
 *
 * Spec: secrets.md "Health (root namespace only)"; FIDELITY.md "Secrets" (health).
 */
import { json, type SimRequest, type SimResponse } from "../http.js";
import type { Simulator } from "../../simulator/kernel/simulator.js";
import { SECRETS } from "../../simulator/secrets/errors.js";
import { DEFAULT_HEALTH_CODES, HEALTH_CODE_SUBJECT, healthBody, healthCodeName, type HealthBody, type HealthCodes, type HealthQuery } from "../../simulator/secrets/health.js";
import type { NodeState } from "../../simulator/secrets/node-state.js";
import type { SecretsState } from "../../simulator/secrets/state.js";
import { parseGoBool } from "./request.js";

const BODYLESS = new Set([204, 205, 304]);

/**
 * Reads the health query parameters.
 * @returns the query, or `undefined` when a parameter is bad (the 400 case).
 */
export function parseHealthQuery(params: URLSearchParams): HealthQuery | undefined {
  const flag = (name: string): boolean | undefined => {
    const values = params.getAll(name);
    if (values.length === 0) return false;
    return parseGoBool(values[0] ?? "");
  };
  const standbyok = flag("standbyok");
  const perfstandbyok = flag("perfstandbyok");
  if (standbyok === undefined || perfstandbyok === undefined) return undefined;
  const codes: Record<string, number> = { ...DEFAULT_HEALTH_CODES };
  for (const name of Object.keys(DEFAULT_HEALTH_CODES)) {
    const values = params.getAll(name);
    if (values.length === 0) continue;
    const text = values[0] ?? "";
    if (!/^[+-]?\d+$/.test(text)) return undefined;
    const code = Number(text);
    if (code < 200 || code > 599) return undefined;
    codes[name] = code;
  }
  return { standbyok, perfstandbyok, codes: codes as unknown as HealthCodes };
}

/**
 * Answers a health request (any method reaching `sys/health`).
 * @param as - answer as a node in this state instead of the node's own (a fault's standby or
 *   sealed answer); the rest of the node's status (version, cluster) is kept.
 */
export function healthResponse(sim: Simulator, request: SimRequest, namespace: string, as?: NodeState): SimResponse {
  const method = request.method;
  const head = method === "HEAD";
  if (method !== "GET" && !head) return json(405, { errors: [] });
  if (namespace !== "") return head ? { status: 404, headers: {} } : json(404, { errors: ["unsupported path"] });
  const query = parseHealthQuery(request.url.searchParams);
  if (query === undefined) return head ? { status: 400, headers: {} } : json(400, { errors: [] });
  const { code, body } = sim.read<SecretsState, { code: number; body: HealthBody }>(SECRETS, (ctx) => {
    const node = as === undefined ? ctx.state.node : { ...ctx.state.node, state: as, unstable: false };
    const name = healthCodeName(node, query);
    ctx.trace({ kind: "event", subject: HEALTH_CODE_SUBJECT, name });
    return { code: query.codes[name], body: healthBody(node, ctx.now, ctx.state.writeIndex) };
  });
  if (head || BODYLESS.has(code)) return { status: code, headers: { "content-type": "application/json" } };
  return json(code, body);
}
