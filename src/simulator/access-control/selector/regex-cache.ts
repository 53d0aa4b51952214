/** Compiled `matches` patterns, shared by type checking and evaluation (bounded; pure). */
import { compileRe2, Re2SyntaxError, type Re2 } from "./re2-adapter.js";

const MAX_ENTRIES = 512;
const cache = new Map<string, Re2 | Re2SyntaxError>();

/** The compiled pattern, or the Go syntax error it raises. Never throws. */
export function cachedRegex(pattern: string): Re2 | Re2SyntaxError {
  const hit = cache.get(pattern);
  if (hit !== undefined) return hit;
  let entry: Re2 | Re2SyntaxError;
  try {
    entry = compileRe2(pattern);
  } catch (error) {
    if (!(error instanceof Re2SyntaxError)) throw error;
    entry = error;
  }
  if (cache.size >= MAX_ENTRIES) cache.clear();
  cache.set(pattern, entry);
  return entry;
}
