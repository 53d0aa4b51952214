/** `infra-doubles/server`: the node:http transport alone. */
export { METHOD_OVERRIDE_HEADER, startServer, type RunningServer, type ServerOptions } from "./server.js";
