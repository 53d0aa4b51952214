/**
 * `infra-doubles/nock`: the nock transport alone.
 *
 * @packageDocumentation
 * @module infra-doubles/nock
 */
export { INTERCEPTED_METHODS, interceptWithNock, recoverBytes, type NockInterception } from "./nock-adapter.js";
