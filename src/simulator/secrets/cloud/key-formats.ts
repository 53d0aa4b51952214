/**
 * Plausible cloud credential formats, drawn from the simulator's seeded id source: 20-character
 * access key ids (`AKIA...` long-lived, `ASIA...` temporary), 40-character secret keys, session
 * tokens, and IAM user ids (`AIDA...`).
 *
 * FIDELITY.md "Secrets" (cloud credentials).
 */
import type { IdSource } from "../../kernel/ids.js";

/** The alphabet of key and unique ids (upper-case base32). */
export const KEY_ID_ALPHABET = "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567";
const SECRET_ALPHABET = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

/**
 * A long-lived access key id: `AKIA` + 16 characters.
 * @example longTermAccessKeyId(ctx.ids) // "AKIA" + 16 characters
 */
export function longTermAccessKeyId(ids: IdSource): string {
  return `AKIA${ids.string(16, KEY_ID_ALPHABET)}`;
}

/**
 * A temporary (STS) access key id: `ASIA` + 16 characters.
 * @example temporaryAccessKeyId(ctx.ids) // "ASIA" + 16 characters
 */
export function temporaryAccessKeyId(ids: IdSource): string {
  return `ASIA${ids.string(16, KEY_ID_ALPHABET)}`;
}

/**
 * A 40-character secret access key.
 * @example secretAccessKey(ctx.ids).length // 40
 */
export function secretAccessKey(ids: IdSource): string {
  return ids.string(40, SECRET_ALPHABET);
}

/**
 * A session token (base64 text of the length real tokens have).
 * @example sessionToken(ctx.ids).startsWith("IQoJb3JpZ2luX2Vj") // true
 */
export function sessionToken(ids: IdSource): string {
  return `IQoJb3JpZ2luX2Vj${ids.string(340, SECRET_ALPHABET)}`;
}

/**
 * An IAM user's unique id: `AIDA` + 17 characters.
 * @example iamUserId(ctx.ids) // "AIDA" + 17 characters
 */
export function iamUserId(ids: IdSource): string {
  return `AIDA${ids.string(17, KEY_ID_ALPHABET)}`;
}
