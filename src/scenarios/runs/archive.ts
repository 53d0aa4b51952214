/**
 * Builds small `.tar.gz` configuration archives for uploads and VCS commits in tests: the tar is
 * nanotar's `createTar` (ustar headers, mode 644, owner 0, mtime 0), gzip is `node:zlib` at level 9
 * with a fixed header, so the same files give the same bytes on every platform and Node version.
 */
import { lazyRequire } from "../../simulator/kernel/lazy-require.js";
import { UsageError } from "../../simulator/kernel/errors.js";

/** `node:zlib` and nanotar, loaded by the first archive built (see lazy-require.ts). */
const zlib = lazyRequire<typeof import("node:zlib")>("node:zlib");
const nanotar = lazyRequire<typeof import("nanotar")>("nanotar");

const BLOCK = 512;
/** Where the checksum field of a ustar header starts, and its length. */
const CHECKSUM = { offset: 148, length: 8 } as const;
/** The gzip header's OS byte: 3 (Unix), whatever zlib's platform writes (Windows 10, macOS 19). */
const GZIP_OS_BYTE = 9;

/**
 * A `.tar.gz` archive holding `files` (path -> UTF-8 content), byte-identical for the same input.
 *
 * @param files - e.g. `{ "main.tf": 'resource "null_resource" "x" {}' }`; paths up to 100 bytes (default: `main.tf` holding {@link DEFAULT_MAIN_TF}).
 * @returns the gzip-compressed tar bytes.
 * @throws {UsageError} when `files` is not an object of path -> string, or a path is empty or longer than 100 bytes.
 * @example
 * const archive = configurationArchive({ "main.tf": 'output "hello" { value = "world" }' });
 * await fetch(uploadUrl, { method: "PUT", headers: { "content-type": "application/octet-stream" }, body: archive });
 */
export function configurationArchive(files?: Readonly<Record<string, string>>): Uint8Array<ArrayBuffer> {
  // The default archive is the same bytes every time: compressed once, a fresh copy per call (a
  // scenario of 10,000 workspaces uploads it 10,000 times).
  if (files === undefined) return (defaultArchive ??= tarGz({ "main.tf": DEFAULT_MAIN_TF })).slice();
  return tarGz(files);
}

let defaultArchive: Uint8Array<ArrayBuffer> | undefined;

function tarGz(files: Readonly<Record<string, string>>): Uint8Array<ArrayBuffer> {
  if (files === null || typeof files !== "object" || Array.isArray(files)) throw new UsageError("runs: archive files must be an object of path -> content");
  const entries = Object.entries(files).map(([path, content]) => {
    if (typeof content !== "string") throw new UsageError(`runs: archive file ${JSON.stringify(path)} must have string content`);
    const length = Buffer.byteLength(path, "utf8");
    if (length === 0 || length > 100) throw new UsageError(`runs: archive paths must be 1 to 100 bytes long: ${JSON.stringify(path)}`);
    return { name: path, data: Buffer.from(content, "utf8") };
  });
  const tar = nanotar().createTar(entries, { attrs: { mode: "644", uid: 0, gid: 0, mtime: 0, user: "", group: "" } });
  const gzip = zlib().gzipSync(canonical(tar, entries), { level: 9 });
  gzip[GZIP_OS_BYTE] = 3;
  return new Uint8Array(gzip);
}

/**
 * nanotar's tar in the layout this function has always written (POSIX, as GNU tar writes it): the
 * checksum as six octal digits, NUL, space (nanotar writes the same sum unpadded, NUL-filled), and
 * exactly two zero blocks after the last entry (nanotar pads to 10 KiB records and leaves the end
 * blocks out when the entries fill a record).
 */
function canonical(tar: Uint8Array, entries: readonly { readonly data: Uint8Array }[]): Uint8Array {
  let end = 0;
  const headers: number[] = [];
  for (const { data } of entries) {
    headers.push(end);
    end += BLOCK + BLOCK * Math.ceil(data.length / BLOCK);
  }
  const out = new Uint8Array(end + 2 * BLOCK);
  out.set(tar.subarray(0, end));
  for (const at of headers) {
    const field = out.subarray(at + CHECKSUM.offset, at + CHECKSUM.offset + CHECKSUM.length);
    const sum = Number.parseInt(Buffer.from(field).toString("latin1").replace(/\0.*$/s, ""), 8);
    field.set(Buffer.from(`${sum.toString(8).padStart(6, "0")}\0 `, "latin1"));
  }
  return out;
}

/**
 * The configuration of the default archive.
 * @example
 * configurationArchive({ "main.tf": DEFAULT_MAIN_TF })
 */
export const DEFAULT_MAIN_TF = 'resource "null_resource" "example" {}\n';
