/**
 * `infra-doubles/server`: the node:http transport alone, with its `/_sim/` control API and LIST support.
 *
 * @packageDocumentation
 * @module infra-doubles/server
 */
export { METHOD_OVERRIDE_HEADER, startServer, type RunningServer, type ServerOptions } from "./server.js";
export { CONTROL_PREFIX, clockView, controlMounts, type ClockView, type ControlApiOptions, type PluginControlRoutes } from "./control.js";
export { MethodRewriter, ORIGINAL_METHOD_HEADER, rewriteUnknownMethods, connectionSecret } from "./socket-methods.js";
