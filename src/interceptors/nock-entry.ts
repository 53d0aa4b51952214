/** `infra-doubles/nock`: the nock transport alone. */
export { INTERCEPTED_METHODS, interceptWithNock, recoverBytes, type NockInterception } from "./nock-adapter.js";
