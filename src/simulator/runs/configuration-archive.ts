/**
 * Reads a configuration archive (`.tar.gz`, spec: "Configuration versions", the upload `PUT`) as the
 * real service extracts it: with go-slug, that is gzip, then Go's `archive/tar`. Decoding the
 * entries is nanotar's `parseTar`; this module adds what nanotar leaves to its caller (it trusts its
 * input): the header checks Go makes (checksum, numeric fields, truncation, end of archive), the
 * ustar `prefix` field of long paths, and a cap on the inflated size. A failure reads as go-slug's
 * error (docs/decisions/runs.md, "Archives").
 */
import type { ParsedTarFileItem } from "nanotar";
import { lazyRequire } from "../kernel/lazy-require.js";

/** `node:zlib` and nanotar, loaded by the first archive read (see lazy-require.ts). */
const zlib = lazyRequire<typeof import("node:zlib")>("node:zlib");
const nanotar = lazyRequire<typeof import("nanotar")>("nanotar");

/**
 * The largest inflated (tar) size read, in bytes (64 MiB); a larger archive (a decompression bomb
 * among others) makes the upload `errored`.
 * @example
 * readConfigurationArchive(bytes).ok // false when the tar inside is larger than MAX_CONFIGURATION_BYTES
 */
export const MAX_CONFIGURATION_BYTES = 64 * 1024 * 1024;

/** A regular file of a configuration archive. */
export interface ArchivedFile {
  /** The path as extracted: relative, `/`-separated, without `./` (e.g. `modules/vpc/main.tf`). */
  readonly path: string;
  /** Permission bits from the header, e.g. `0o644` (420). */
  readonly mode: number;
  /** The file's bytes (a view into the inflated archive: copy before handing out). */
  readonly bytes: Uint8Array;
}

/** What reading an archive gives: its regular files in archive order, or go-slug's error message. */
export type ArchiveReading =
  | { readonly ok: true; readonly files: readonly ArchivedFile[] }
  | { readonly ok: false; readonly message: string };

const BLOCK = 512;
const UNCOMPRESS = "failed to uncompress slug";
const UNTAR = "failed to untar slug";
const INVALID_HEADER = fail(`${UNTAR}: archive/tar: invalid tar header`);
const UNEXPECTED_EOF = fail(`${UNTAR}: unexpected EOF`);
/** Header types that describe the next entry (PAX, GNU long names), not an entry themselves (as nanotar reads them). */
const META_TYPES = new Set(["x", "g", "L", "N", "K"]);

function fail(message: string): ArchiveReading {
  return { ok: false, message };
}

/**
 * Reads a `.tar.gz` configuration archive: its regular files (directories, links and other entries
 * are not listed; a later entry with the same path replaces an earlier one, as extraction does).
 * Never throws for bad input: the answer says why the archive could not be read, in go-slug's words.
 * - empty: `failed to uncompress slug: EOF`; shorter than a gzip header: `... unexpected EOF`;
 *   not gzip: `failed to uncompress slug: gzip: invalid header`;
 * - cut short (gzip stream or tar entry): `failed to untar slug: unexpected EOF`; a bad gzip
 *   checksum: `... gzip: invalid checksum`; corrupt deflate data: `... flate: corrupt input`;
 * - not a tar (a header whose checksum or numbers are wrong): `failed to untar slug: archive/tar:
 *   invalid tar header`;
 * - inflating to more than `maxBytes`: `failed to untar slug: archive larger than <n> bytes uncompressed`.
 * @param bytes - the uploaded bytes.
 * @param maxBytes - the cap on the inflated size (default {@link MAX_CONFIGURATION_BYTES}).
 * @example
 * const reading = readConfigurationArchive(upload);
 * if (reading.ok) reading.files.map((f) => f.path) // ["main.tf", "modules/vpc/main.tf"]
 */
export function readConfigurationArchive(bytes: Uint8Array, maxBytes = MAX_CONFIGURATION_BYTES): ArchiveReading {
  if (bytes.length === 0) return fail(`${UNCOMPRESS}: EOF`);
  if (bytes.length < 10) return fail(`${UNCOMPRESS}: unexpected EOF`);
  if (bytes[0] !== 0x1f || bytes[1] !== 0x8b || bytes[2] !== 8) return fail(`${UNCOMPRESS}: gzip: invalid header`);
  let tar: Uint8Array;
  try {
    tar = zlib().gunzipSync(bytes, { maxOutputLength: maxBytes });
  } catch (error) {
    return inflateFailure(error, maxBytes);
  }
  const walk = walkHeaders(tar);
  if (!("entries" in walk)) return walk;
  return decode(tar, walk);
}

function inflateFailure(error: unknown, maxBytes: number): ArchiveReading {
  const { code, message } = error as { code?: unknown; message?: unknown };
  if (code === "ERR_BUFFER_TOO_LARGE") return fail(`${UNTAR}: archive larger than ${maxBytes} bytes uncompressed`);
  if (code === "Z_BUF_ERROR") return UNEXPECTED_EOF;
  if (message === "incorrect data check" || message === "incorrect length check") return fail(`${UNTAR}: gzip: invalid checksum`);
  if (message === "incorrect header check") return fail(`${UNTAR}: gzip: invalid header`); // a second gzip member that is not one
  if (code === "Z_DATA_ERROR") return fail(`${UNTAR}: flate: corrupt input`);
  throw error;
}

/** One entry as the header walk saw it. */
interface HeaderEntry {
  /** The name with the ustar prefix joined (`prefix/name`), or the name field alone. */
  readonly name: string;
  /** A PAX or GNU header came before it: nanotar's name (the long one) wins. */
  readonly longName: boolean;
}

interface Walk {
  readonly entries: readonly HeaderEntry[];
  /** Whether the archive ends with its two zero blocks (nanotar misses a last header-only entry without them). */
  readonly terminated: boolean;
}

/** Checks every header as Go's archive/tar does before nanotar decodes them. */
function walkHeaders(tar: Uint8Array): Walk | ArchiveReading {
  const entries: HeaderEntry[] = [];
  let offset = 0;
  let described = false;
  for (;;) {
    const left = tar.length - offset;
    if (left === 0) return { entries, terminated: false };
    if (left < BLOCK) return UNEXPECTED_EOF;
    const block = tar.subarray(offset, offset + BLOCK);
    if (isZero(block)) {
      // Go reads one more block: none is the end too; a zero block ends the archive; anything else is no header.
      if (left === BLOCK) return { entries, terminated: false };
      if (left < 2 * BLOCK) return UNEXPECTED_EOF;
      return isZero(tar.subarray(offset + BLOCK, offset + 2 * BLOCK)) ? { entries, terminated: true } : INVALID_HEADER;
    }
    if (!checksumMatches(block)) return INVALID_HEADER;
    const numbers = [numeric(block, 100, 8), numeric(block, 108, 8), numeric(block, 116, 8), numeric(block, 124, 12), numeric(block, 136, 12)];
    if (numbers.some((n) => n === undefined || n < 0)) return INVALID_HEADER;
    const size = numbers[3] as number;
    const type = block[156] === 0 ? "0" : String.fromCharCode(block[156] as number);
    const padded = BLOCK * Math.ceil(size / BLOCK);
    if (offset + BLOCK + padded > tar.length) return UNEXPECTED_EOF;
    if (META_TYPES.has(type)) described = true;
    else {
      const name = text(block, 0, 100);
      const prefix = isUstar(block) ? text(block, 345, 155) : "";
      entries.push({ name: prefix === "" ? name : `${prefix}/${name}`, longName: described });
      described = false;
    }
    offset += BLOCK + padded;
  }
}

function decode(tar: Uint8Array, walk: Walk): ArchiveReading {
  // nanotar reads `data.buffer` from its start (it ignores byteOffset): give it a buffer of its own.
  const own = tar.byteOffset === 0 && tar.byteLength === tar.buffer.byteLength && walk.terminated;
  const input = own ? tar : copyWithEnd(tar, walk.terminated);
  let parsed: ParsedTarFileItem[];
  try {
    parsed = nanotar().parseTar<never, { metaOnly: false }>(input);
  } catch {
    return INVALID_HEADER;
  }
  if (parsed.length !== walk.entries.length) return INVALID_HEADER;
  const files = new Map<string, ArchivedFile>();
  parsed.forEach((item, i) => {
    const entry = walk.entries[i] as HeaderEntry;
    if (item.type !== "file" && item.type !== "contiguousFile") return;
    const path = cleanPath(entry.longName ? item.name : entry.name);
    if (path === "") return;
    const mode = Number.parseInt(item.attrs?.mode ?? "0", 8);
    files.delete(path);
    files.set(path, { path, mode: Number.isNaN(mode) ? 0 : mode & 0o7777, bytes: item.data ?? new Uint8Array(0) });
  });
  return { ok: true, files: [...files.values()] };
}

function copyWithEnd(tar: Uint8Array, terminated: boolean): Uint8Array {
  const copy = new Uint8Array(tar.length + (terminated ? 0 : 2 * BLOCK));
  copy.set(tar);
  return copy;
}

/** The path as extraction sees it: `/`-separated, relative, `.` and empty segments dropped. */
function cleanPath(name: string): string {
  return name
    .replace(/\\/g, "/")
    .split("/")
    .filter((segment) => segment !== "" && segment !== ".")
    .join("/");
}

function isZero(block: Uint8Array): boolean {
  for (const byte of block) if (byte !== 0) return false;
  return true;
}

/** Go accepts the unsigned and the signed sum of the header with the checksum field read as spaces. */
function checksumMatches(block: Uint8Array): boolean {
  const stored = numeric(block, 148, 8);
  if (stored === undefined) return false;
  let unsigned = 0;
  let signed = 0;
  for (let i = 0; i < BLOCK; i++) {
    const byte = i >= 148 && i < 156 ? 0x20 : (block[i] as number);
    unsigned += byte;
    signed += byte > 127 ? byte - 256 : byte;
  }
  return stored === unsigned || stored === signed;
}

/** A numeric field: octal (spaces and NULs around it ignored; empty is 0) or GNU base-256. */
function numeric(block: Uint8Array, start: number, length: number): number | undefined {
  const first = block[start] as number;
  if ((first & 0x80) !== 0) {
    let value = first & 0x40 ? -1 : first & 0x3f;
    for (let i = start + 1; i < start + length; i++) value = value * 256 + (block[i] as number);
    return Number.isSafeInteger(value) ? value : undefined;
  }
  const field = String.fromCharCode(...block.subarray(start, start + length)).replace(/^[ \0]+|[ \0]+$/g, "");
  if (field === "") return 0;
  return /^[0-7]+$/.test(field) ? Number.parseInt(field, 8) : undefined;
}

function isUstar(block: Uint8Array): boolean {
  return text(block, 257, 6) === "ustar" && block[263] === 0x30 && block[264] === 0x30;
}

function text(block: Uint8Array, start: number, length: number): string {
  const field = block.subarray(start, start + length);
  const end = field.indexOf(0);
  return new TextDecoder().decode(end === -1 ? field : field.subarray(0, end));
}
