/**
 * The `Hash` field of tokens, policies and roles: a digest of the fields that define what the
 * resource grants, base64-encoded (the real service hashes the same way, with another digest).
 * Deterministic: same content, same hash.
 */
import { createHash } from "node:crypto";

/** Base64 SHA-256 of the canonical JSON of `content`. */
export function contentHash(content: unknown): string {
  return createHash("sha256").update(JSON.stringify(content)).digest("base64");
}

/** Lowercase hex SHA-256 of `text`, cut to `length` characters. */
export function hexDigest(text: string, length = 32): string {
  return createHash("sha256").update(text).digest("hex").slice(0, length);
}
