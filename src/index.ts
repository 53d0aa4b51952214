/**
 * infra-doubles: faithful, stateful, time-controllable fakes of the run orchestration,
 * access-control and secrets services, for unit tests.
 */
export * from "./simulator/index.js";
export { createHandler, type Handler, type HandlerOptions, type JournalEntry } from "./interceptors/handler.js";
export type { HttpService, Route, RouteContext, ServiceMount, SimRequest, SimResponse } from "./interceptors/http.js";
export { INTERCEPTED_METHODS, interceptWithNock, type NockInterception } from "./interceptors/nock-adapter.js";
export { METHOD_OVERRIDE_HEADER, startServer, type RunningServer, type ServerOptions } from "./interceptors/server.js";
export {
  DoublesCore,
  makeClock,
  type BaseUrlOption,
  type ClockOption,
  type DoublesCoreOptions,
} from "./scenarios/doubles-core.js";
export type { ServicePlugin } from "./scenarios/plugin.js";
export { ALL_PLUGINS, Doubles, createDoubles, type DoublesOptions } from "./scenarios/doubles.js";
