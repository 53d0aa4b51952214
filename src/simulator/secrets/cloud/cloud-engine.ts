/**
 * The cloud-account secrets engine type `cloud`: its initial mount state, what dies with its leases,
 * and its timed moves (static role rotation).
 *
 * Spec: secrets.md "Cloud-account engine".
 */
import type { EngineContext, SecretsEngine } from "../engine.js";
import type { MovePayload } from "../../kernel/scheduler.js";
import { endCredentialLease } from "./credentials.js";
import { initialCloudMountState, type CloudMountState } from "./state.js";
import { ROTATE_MOVE, rotateStaticRole } from "./static-roles.js";

/** The engine type name mounts use. */
export const CLOUD_ENGINE_TYPE = "cloud";

/**
 * The cloud-account engine, for the secrets core's engine registry.
 * @example const state = cloudEngine.initialMountState(); // nothing configured, empty account
 */
export const cloudEngine: SecretsEngine<CloudMountState> = Object.freeze({
  type: CLOUD_ENGINE_TYPE,
  initialMountState: initialCloudMountState,
  onLeaseEnd: endCredentialLease,
  moves: Object.freeze({
    [ROTATE_MOVE]: (ctx: EngineContext<CloudMountState>, payload: MovePayload) => rotateStaticRole(ctx, String(payload)),
  }),
});
