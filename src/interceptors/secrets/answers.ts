/**
 * What each secrets route answers. secrets.md documents few statuses (`POST /ssh/config/ca`: 204,
 * or 200 with the generated key; a missing cloud-account role: 404; health's state codes) and says
 * "The general error body shape and other status codes: not shown"; FIDELITY.md "Secrets" gives
 * them: 403 `permission denied` on every authenticated route, 404 `{"errors":[]}` for a read of a
 * missing path or an empty list, 400 for a user error in a write. Writes answer 204 when they
 * return nothing, 200 with the envelope otherwise (as the routes' handlers do). LIST answers'
 * `data.keys` come in an order the spec does not give. Every envelope answer carries `wrap_info`
 * and `auth` as `null` (and `warnings` when there are none), so each read answering an envelope
 * gets a field-omitted mutant per member (and the IAM credentials read one for `security_token`).
 * Data for service mutants.
 */
import type { DomainErrorCode } from "../../simulator/kernel/errors.js";
import { answersRow, type RouteAnswersTable } from "../route-answers.js";
import type { SecretsRoute } from "../route-names.js";

type Row = ReturnType<typeof answersRow>;
/**
 * The envelope's members answered as `null`: `warnings` ("array or null") and `auth` ("null") as
 * the spec's envelope gives them, and `wrap_info` (null unless wrapped; envelope.ts).
 */
const ENVELOPE_NULLS: readonly string[] = Object.freeze(["wrap_info", "warnings", "auth"]);
const F: DomainErrorCode = "forbidden";
const N: DomainErrorCode = "not_found";
const I: DomainErrorCode = "invalid";

/** A read answering the envelope: 200, or 403 / 404; its `null` members may be omitted. */
const read = (errors: readonly DomainErrorCode[] = [F, N], nullFields: readonly string[] = ENVELOPE_NULLS): Row => answersRow(200, errors, { nullFields });
/** A LIST: 200 with `data.keys` in no documented order, or 403 / 404 (none to list). */
const list = (): Row => answersRow(200, [F, N], { unorderedList: "/data/keys", nullFields: ENVELOPE_NULLS });
/** A write answering nothing: 204, or 403 / 400. */
const write = (errors: readonly DomainErrorCode[] = [F, I]): Row => answersRow(204, errors);
/** A write answering the envelope: 200, or 403 / 400. */
const writeData = (errors: readonly DomainErrorCode[] = [F, I]): Row => answersRow(200, errors);
/** A delete: 204, or 403. */
const remove = (errors: readonly DomainErrorCode[] = [F]): Row => answersRow(204, errors);

/** Every secrets route's documented answers (a route missing here is a compile error). */
const ROUTES: Readonly<Record<SecretsRoute, Row>> = {
  // Health answers its state codes (secrets.md state table), not the error body: no error swapped in.
  "GET /sys/health": answersRow(200),
  "HEAD /sys/health": answersRow(200),
  "LIST /sys/managed-keys/:type": list(),
  "GET /sys/managed-keys/:type/:name": read(),
  "POST /sys/managed-keys/:type/:name": write(),
  // "Delete of a managed key listed in a mount's allowed_managed_keys: refused" (400).
  "DELETE /sys/managed-keys/:type/:name": remove([F, I]),
  "POST /sys/managed-keys/:type/:name/test/sign": write(),
  "LIST /identity/mfa/login-enforcement": list(),
  "GET /identity/mfa/login-enforcement/:name": read(),
  "POST /identity/mfa/login-enforcement/:name": write(),
  "DELETE /identity/mfa/login-enforcement/:name": remove(),
  "POST /sys/leases/lookup": writeData(),
  "POST /sys/leases/renew": writeData(),
  "POST /sys/leases/renew/*lease_id": writeData(),
  "POST /sys/leases/revoke": write(),
  "POST /sys/leases/revoke/*lease_id": write(),
  "GET /sys/mounts": read([F]),
  "GET /sys/mounts/*path": read(),
  "POST /sys/mounts/*path": write(),
  "DELETE /sys/mounts/*path": remove(),
  "GET /auth/token/lookup-self": read([F]),
  "POST /auth/token/lookup-self": writeData([F]),
  "GET /auth/token/lookup": read([F, I]),
  "POST /auth/token/lookup": writeData(),
  "POST /auth/token/lookup-accessor": writeData(),
  "POST /auth/token/create": writeData(),
  "POST /auth/token/create-orphan": writeData(),
  "POST /auth/token/renew-self": writeData(),
  "POST /auth/token/renew": writeData(),
  "POST /auth/token/renew-accessor": writeData(),
  "POST /auth/token/revoke-self": write([F]),
  "POST /auth/token/revoke": write(),
  "POST /auth/token/revoke-accessor": write(),
  "POST /auth/token/revoke-orphan": write(),
  "POST /sys/capabilities-self": writeData(),
  // Unauthenticated system routes: no permission to refuse.
  "GET /sys/seal-status": answersRow(200),
  "GET /sys/init": answersRow(200),
  "POST /sys/init": answersRow(200, [I]),
  "GET /sys/internal/ui/mounts": read([]),
  "GET /sys/internal/ui/mounts/*path": read([N]),
  "POST /sys/wrapping/wrap": writeData(),
  "POST /sys/wrapping/unwrap": writeData([I]),
  "GET /sys/wrapping/lookup": read([I]),
  "POST /sys/wrapping/lookup": writeData([I]),
  "POST /sys/wrapping/rewrap": writeData(),
  "POST /ssh/keys/:name": write(),
  "DELETE /ssh/keys/:name": remove(),
  "LIST /ssh/roles": list(),
  "GET /ssh/roles/:name": read(),
  "POST /ssh/roles/:name": write(),
  "DELETE /ssh/roles/:name": remove(),
  "GET /ssh/config/zeroaddress": read(),
  "POST /ssh/config/zeroaddress": write(),
  "DELETE /ssh/config/zeroaddress": remove(),
  "POST /ssh/creds/:name": writeData(),
  "POST /ssh/lookup": writeData(),
  // Unauthenticated (secrets.md "Authentication"): an unknown OTP is a 400 (FIDELITY.md).
  "POST /ssh/verify": writeData([I]),
  // secrets.md: "204, or 200 with data.public_key when generate_signing_key is true".
  "POST /ssh/config/ca": answersRow([204, 200], [F, I]),
  "GET /ssh/config/ca": read(),
  "DELETE /ssh/config/ca": remove(),
  // Unauthenticated, `text/plain`: no envelope.
  "GET /ssh/public_key": answersRow(200, [N]),
  "POST /ssh/sign/:name": writeData(),
  "GET /cloud/config/root": read([F]),
  "POST /cloud/config/root": write(),
  "POST /cloud/config/rotate-root": writeData(),
  "GET /cloud/config/lease": read([F]),
  "POST /cloud/config/lease": write(),
  "LIST /cloud/roles": list(),
  // secrets.md Errors: "Read or delete of a missing cloud-account role: 404".
  "GET /cloud/roles/:name": read(),
  "POST /cloud/roles/:name": answersRow([204, 200], [F, I]),
  "DELETE /cloud/roles/:name": remove([F, N]),
  // secrets.md: `security_token` is "null for IAM users".
  "GET /cloud/creds/:name": read([F, I], [...ENVELOPE_NULLS, "security_token"]),
  "POST /cloud/creds/:name": writeData(),
  "GET /cloud/sts/:name": read([F, I]),
  "POST /cloud/sts/:name": writeData(),
  "GET /cloud/static-roles/:name": read(),
  "POST /cloud/static-roles/:name": write(),
  "DELETE /cloud/static-roles/:name": remove(),
  "GET /cloud/static-creds/:name": read(),
};

/**
 * The secrets service's answers table ({@link RouteAnswersTable}); the messages are what its
 * `{"errors":[...]}` bodies carry (`permission denied` is written by its error function itself;
 * a 404 carries none).
 * @example SECRETS_ANSWERS.routes["LIST /ssh/roles"]?.unorderedList // "/data/keys"
 */
export const SECRETS_ANSWERS: RouteAnswersTable = Object.freeze({
  routes: Object.freeze(ROUTES),
  messages: Object.freeze({ forbidden: "permission denied", not_found: "", invalid: "invalid request" }),
});
