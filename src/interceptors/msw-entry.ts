/**
 * `infra-doubles/msw`: msw 2 request handlers over the doubles (msw is an optional peer dependency).
 *
 * @packageDocumentation
 * @module infra-doubles/msw
 */
export { mswHandlers, type HandlerSource } from "./transports/msw.js";
