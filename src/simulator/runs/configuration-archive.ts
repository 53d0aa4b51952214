/**
 * Reads a configuration archive (`.tar.gz`, spec: "Configuration versions", the upload `PUT`) as the
 * real service extracts it: with go-slug (v0.18's `Unpack`), that is gzip, then Go's `archive/tar`,
 * then go-slug's checks of each entry. Decoding the entries is nanotar's `parseTar`; this module adds
 * what nanotar leaves to its caller (it trusts its input): the header checks Go makes (checksum,
 * numeric fields, truncation, end of archive), entry names and link targets as Go reads them (the
 * ustar `prefix` field, PAX `path`/`linkpath` and GNU long names), go-slug's refusals (`..`
 * traversal, absolute paths, hard links and other entry types, symlinks whose target escapes the
 * root, entries extracted through a symlink) and a cap on the inflated size. A failure reads as
 * go-slug's error (docs/decisions/runs.md, "Archives").
 */
import { posix } from "node:path";
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
const DECOMPRESS = "failed to decompress slug";
const UNTAR = "failed to untar slug";
const INVALID_HEADER = fail(`${UNTAR}: archive/tar: invalid tar header`);
const UNEXPECTED_EOF = fail(`${UNTAR}: unexpected EOF`);
/**
 * The directory go-slug extracts into, as its messages show it (the real one is a temporary
 * directory whose name the fake cannot know; docs/decisions/runs.md).
 */
export const EXTRACTION_ROOT = "/tmp/slug";
const ILLEGAL = "illegal slug error";
/** Entry types go-slug extracts (or skips quietly): regular files, directories, symlinks, PAX headers. */
const EXTRACTED_TYPES = new Set(["0", "5", "2", "g", "x"]);

function fail(message: string): ArchiveReading {
  return { ok: false, message };
}

/**
 * Reads a `.tar.gz` configuration archive: its regular files (directories and symlinks are not
 * listed, nor macOS `._*` metadata files, which go-slug skips; a later entry with the same path
 * replaces an earlier one, as extraction does). Never throws for bad input: the answer says why the
 * archive could not be read, in go-slug's words.
 * - empty: `failed to decompress slug: EOF`; shorter than a gzip header: `... unexpected EOF`;
 *   not gzip: `failed to decompress slug: gzip: invalid header`;
 * - cut short (gzip stream or tar entry): `failed to untar slug: unexpected EOF`; a bad gzip
 *   checksum: `... gzip: invalid checksum`; corrupt deflate data: `... flate: corrupt input`;
 * - not a tar (a header whose checksum or numbers are wrong): `failed to untar slug: archive/tar:
 *   invalid tar header`;
 * - inflating to more than `maxBytes`: `failed to untar slug: archive larger than <n> bytes uncompressed`;
 * - an entry outside the root: `illegal slug error: invalid filename, traversal with ".." outside of
 *   current directory`; a hard link, device, FIFO or other type: `illegal slug error: failed
 *   creating "/tmp/slug/<path>", unsupported file type 1`; a symlink leaving the root: `illegal slug
 *   error: invalid symlink ("<path>" -> "<target>") has external target`; an entry under a symlink:
 *   `illegal slug error: cannot extract "<path>" through symlink`; an absolute path: `failed to
 *   create directory "/etc": mkdirat /etc: path escapes from parent` (or `failed creating file
 *   "/tmp/slug/x.tf": openat /x.tf: path escapes from parent` for a file at the top).
 * @param bytes - the uploaded bytes.
 * @param maxBytes - the cap on the inflated size (default {@link MAX_CONFIGURATION_BYTES}).
 * @example
 * const reading = readConfigurationArchive(upload);
 * if (reading.ok) reading.files.map((f) => f.path) // ["main.tf", "modules/vpc/main.tf"]
 */
export function readConfigurationArchive(bytes: Uint8Array, maxBytes = MAX_CONFIGURATION_BYTES): ArchiveReading {
  if (bytes.length === 0) return fail(`${DECOMPRESS}: EOF`);
  if (bytes.length < 10) return fail(`${DECOMPRESS}: unexpected EOF`);
  if (bytes[0] !== 0x1f || bytes[1] !== 0x8b || bytes[2] !== 8) return fail(`${DECOMPRESS}: gzip: invalid header`);
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

/** What {@link checkConfigurationArchive} says of an archive: its file paths, or go-slug's error. */
export type ArchiveCheck = { readonly ok: true; readonly paths: readonly string[] } | { readonly ok: false; readonly message: string };

/** Archives checked lately, newest last: tests upload the same bytes over and over. */
const checked: { readonly bytes: Uint8Array; readonly check: ArchiveCheck }[] = [];
/** How many archives {@link checkConfigurationArchive} remembers, and up to what size. */
const CHECKED_KEPT = 8;
const CHECKED_MAX_BYTES = 1024 * 1024;

/**
 * {@link readConfigurationArchive} for an upload: whether the archive reads, and its file paths in
 * archive order (no bytes). The answer for the same bytes is always the same, so the last few
 * archives checked (up to 1 MiB each) are remembered with a copy of their bytes: a scenario that
 * uploads the same archive to 10,000 workspaces inflates and parses it once.
 *
 * Refused (`ok: false`, never thrown): what the real service's archive reader (go-slug v0.18.3)
 * refuses, in its words: bytes that are not gzip, a tar that does not parse, a path outside the
 * root (`..`, absolute), links out of the root or through a symlink, hard links, devices and
 * FIFOs, and an archive larger than {@link MAX_CONFIGURATION_BYTES} bytes when inflated (see {@link readConfigurationArchive}).
 * The run orchestration service then ends the configuration version `errored`.
 * Spec: run orchestration, configuration versions (upload).
 * @param bytes - the uploaded `.tar.gz`, as sent.
 * @example
 * checkConfigurationArchive(upload) // { ok: true, paths: ["main.tf"] }
 * checkConfigurationArchive(new TextEncoder().encode("not gzip")) // { ok: false, message: "failed to decompress slug: gzip: invalid header" }
 */
export function checkConfigurationArchive(bytes: Uint8Array): ArchiveCheck {
  const view = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  for (let i = checked.length - 1; i >= 0; i--) {
    const known = checked[i] as (typeof checked)[number];
    if (known.bytes.byteLength === bytes.byteLength && view.equals(known.bytes)) return known.check;
  }
  const reading = readConfigurationArchive(bytes);
  const check: ArchiveCheck = reading.ok ? { ok: true, paths: Object.freeze(reading.files.map((file) => file.path)) } : reading;
  if (bytes.byteLength <= CHECKED_MAX_BYTES) {
    if (checked.length === CHECKED_KEPT) checked.shift();
    checked.push({ bytes: Buffer.from(bytes), check: Object.freeze(check) });
  }
  return check;
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

/** One entry as Go's archive/tar reads it (PAX and GNU long names applied). */
interface HeaderEntry {
  /** The name: a PAX `path` or GNU long name, else the ustar prefix joined (`prefix/name`), else the name field. */
  readonly name: string;
  /** The type flag (`0` regular, `1` hard link, `2` symlink, `5` directory, ...); an old `\0` reads as `0` (`5` when the name ends with `/`). */
  readonly type: string;
  /** The link target: a PAX `linkpath` or GNU long link name, else the linkname field. */
  readonly linkname: string;
}

interface Walk {
  readonly entries: readonly HeaderEntry[];
  /** Whether the archive ends with its two zero blocks (nanotar misses a last header-only entry without them). */
  readonly terminated: boolean;
}

/**
 * Checks every header as Go's archive/tar does, and each entry as go-slug's `Unpack` does, in archive
 * order (the first failure is the answer, as extraction stops there), before nanotar decodes them.
 */
function walkHeaders(tar: Uint8Array): Walk | ArchiveReading {
  const entries: HeaderEntry[] = [];
  const extraction = new Extraction();
  let offset = 0;
  let longName: string | undefined;
  let longLink: string | undefined;
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
    const flag = block[156] === 0 ? "\0" : String.fromCharCode(block[156] as number);
    const padded = BLOCK * Math.ceil(size / BLOCK);
    if (offset + BLOCK + padded > tar.length) return UNEXPECTED_EOF;
    const data = tar.subarray(offset + BLOCK, offset + BLOCK + size);
    if (flag === "x") {
      const records = paxRecords(data);
      longName = records.get("path") ?? longName;
      longLink = records.get("linkpath") ?? longLink;
    } else if (flag === "L") longName = text(data, 0, data.length);
    else if (flag === "K") longLink = text(data, 0, data.length);
    else if (flag !== "g") {
      // `g` (a PAX global header, as `git archive` writes) is skipped by go-slug as by nanotar.
      const prefix = isUstar(block) ? text(block, 345, 155) : "";
      const name = longName ?? (prefix === "" ? text(block, 0, 100) : `${prefix}/${text(block, 0, 100)}`);
      const type = flag === "\0" ? (name.endsWith("/") ? "5" : "0") : flag;
      const entry: HeaderEntry = { name, type, linkname: longLink ?? text(block, 157, 100) };
      const refused = extraction.refusal(entry);
      if (refused !== undefined) return fail(refused);
      entries.push(entry);
      longName = undefined;
      longLink = undefined;
    }
    offset += BLOCK + padded;
  }
}

/**
 * What go-slug's `Unpack` (v0.18, into an `os.Root`) refuses, entry by entry. Paths are Go's
 * `filepath.Clean` of the entry name; the extraction directory shows as {@link EXTRACTION_ROOT}.
 */
class Extraction {
  /** The symlinks extracted so far (cleaned relative paths): nothing may be extracted through them. */
  private readonly symlinks = new Set<string>();

  /** go-slug's error for this entry, or undefined when it extracts (or skips) it. */
  refusal(entry: HeaderEntry): string | undefined {
    if (entry.name === "") return undefined; // skipped
    const path = goClean(entry.name);
    if (posix.basename(path).startsWith("._")) return undefined; // macOS metadata, skipped
    if (path === ".." || path.startsWith("../")) return `${ILLEGAL}: invalid filename, traversal with ".." outside of current directory`;
    const parts = path.split("/");
    for (let i = 1; i < parts.length; i++) {
      const parent = parts.slice(0, i).filter((part) => part !== "").join("/");
      if (this.symlinks.has(parent)) return `${ILLEGAL}: cannot extract ${goQuote(path)} through symlink`;
    }
    const extracted = goClean(`${EXTRACTION_ROOT}/${path}`);
    if (!EXTRACTED_TYPES.has(entry.type)) return `${ILLEGAL}: failed creating ${goQuote(extracted)}, unsupported file type ${entry.type}`;
    const dir = posix.dirname(path);
    // os.Root refuses absolute names ("path escapes from parent").
    if (dir !== "." && dir !== "/" && dir.startsWith("/")) return `failed to create directory ${goQuote(dir)}: mkdirat ${dir}: path escapes from parent`;
    if (entry.type === "2") {
      if (!targetWithinRoot(path, entry.linkname)) return `${ILLEGAL}: invalid symlink (${goQuote(path)} -> ${goQuote(entry.linkname)}) has external target`;
      this.symlinks.add(path);
      return undefined;
    }
    if (entry.type === "0" && path.startsWith("/")) return `failed creating file ${goQuote(extracted)}: openat ${path}: path escapes from parent`;
    return undefined;
  }
}

/**
 * go-slug's `validSymlink` with an extraction directory no archive can name: a target inside the
 * root, resolved from the link's own directory. An absolute link or target is outside it.
 */
function targetWithinRoot(path: string, target: string): boolean {
  if (path.startsWith("/") || target.startsWith("/")) return false;
  const resolved = goClean(posix.join(posix.dirname(path), target));
  return resolved !== ".." && !resolved.startsWith("../");
}

/** Go's `filepath.Clean` on a `/`-separated path. */
function goClean(path: string): string {
  if (path === "") return ".";
  const normalized = posix.normalize(path);
  return normalized.length > 1 && normalized.endsWith("/") ? normalized.slice(0, -1) : normalized;
}

/** Go's `%q` for a path (printable characters as they are, the rest escaped). */
function goQuote(value: string): string {
  const escapes: Record<string, string> = { '"': '\\"', "\\": "\\\\", "\x07": "\\a", "\b": "\\b", "\f": "\\f", "\n": "\\n", "\r": "\\r", "\t": "\\t", "\v": "\\v" };
  let out = "";
  for (const char of value) {
    const code = char.codePointAt(0) as number;
    out += escapes[char] ?? (code < 0x20 || code === 0x7f ? `\\x${code.toString(16).padStart(2, "0")}` : char);
  }
  return `"${out}"`;
}

/** PAX extended header records (`<length> <key>=<value>\n`, the length in bytes), as Go reads them. */
function paxRecords(data: Uint8Array): Map<string, string> {
  const records = new Map<string, string>();
  const decoder = new TextDecoder();
  let offset = 0;
  while (offset < data.length) {
    const space = data.indexOf(0x20, offset);
    const length = space === -1 ? Number.NaN : Number(decoder.decode(data.subarray(offset, space)));
    if (!Number.isSafeInteger(length) || offset + length > data.length || offset + length <= space + 1) break;
    const record = decoder.decode(data.subarray(space + 1, offset + length));
    const equals = record.indexOf("=");
    if (equals > 0 && record.endsWith("\n")) records.set(record.slice(0, equals), record.slice(equals + 1, -1));
    offset += length;
  }
  return records;
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
    if (entry.type !== "0") return;
    // nanotar's own name drops `..` and cuts PAX paths at a space: the name is Go's.
    const path = goClean(entry.name);
    if (path === "." || posix.basename(path).startsWith("._")) return;
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
