/**
 * Configuration archives a careless or hostile client could upload, built two ways: by GNU tar
 * (`tar`, from a directory tree on disk) and by nanotar (`createTar`, with the type flag and link
 * target written into the header afterwards, since nanotar writes files and directories only).
 */
import { execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { gzipSync } from "node:zlib";
import { createTar } from "nanotar";

/**
 * Runs GNU tar in a fresh directory: `prepare` makes `root/` (files, links), then
 * `tar -czf out.tar.gz -C root ...args` packs it.
 */
export function gnuTarArchive(prepare: (root: string) => void, args: readonly string[]): Uint8Array {
  const dir = mkdtempSync(join(tmpdir(), "cv-hostile-"));
  const root = join(dir, "root");
  mkdirSync(root);
  prepare(root);
  execFileSync("tar", ["-czf", join(dir, "out.tar.gz"), "-C", root, ...args], { stdio: ["ignore", "ignore", "ignore"] });
  return new Uint8Array(readFileSync(join(dir, "out.tar.gz")));
}

/** One entry for {@link nanotarArchive}: a file (`data`), or any type flag with a link target. */
export interface RawEntry {
  readonly name: string;
  readonly data?: string;
  /** The tar type flag to write (`1` hard link, `2` symlink, `6` FIFO, ...); default: nanotar's. */
  readonly type?: string;
  readonly linkname?: string;
}

/** A `.tar.gz` written by nanotar, names kept verbatim (`../x`, `/etc/x`), types patched in. */
export function nanotarArchive(entries: readonly RawEntry[]): Uint8Array {
  const tar = createTar(
    entries.map((entry) => ({ name: entry.name, ...(entry.data === undefined ? {} : { data: entry.data }) })),
    { attrs: { mtime: 0, uid: 0, gid: 0, mode: "644" } },
  );
  let offset = 0;
  for (const entry of entries) {
    const header = tar.subarray(offset, offset + 512);
    if (entry.type !== undefined) header[156] = entry.type.charCodeAt(0);
    if (entry.linkname !== undefined) header.set(new TextEncoder().encode(entry.linkname), 157);
    header.fill(0x20, 148, 156);
    const sum = header.reduce((total, byte) => total + byte, 0);
    header.set(new TextEncoder().encode(`${sum.toString(8).padStart(6, "0")}\0 `), 148);
    const size = entry.data === undefined ? 0 : Buffer.byteLength(entry.data);
    offset += 512 + 512 * Math.ceil(size / 512);
  }
  return new Uint8Array(gzipSync(tar));
}

const write = (path: string, text: string): void => {
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, text);
};
const link = (...args: string[]): void => {
  execFileSync("ln", args);
};

/** Archives go-slug refuses, by who built them, with go-slug's message (the version's `error-message`). */
export const REFUSED_ARCHIVES: ReadonlyArray<readonly [what: string, build: () => Uint8Array, message: string]> = [
  [
    "a path leaving the root with .. (tar -P)",
    () => gnuTarArchive((root) => write(join(root, "main.tf"), "x"), ["-P", "--transform", "s,^,../,", "main.tf"]),
    'illegal slug error: invalid filename, traversal with ".." outside of current directory',
  ],
  [
    "a path leaving the root with .. inside it (nanotar)",
    () => nanotarArchive([{ name: "main.tf", data: "ok" }, { name: "modules/../../main.tf", data: "x" }]),
    'illegal slug error: invalid filename, traversal with ".." outside of current directory',
  ],
  [
    "a hard link (tar)",
    () => gnuTarArchive((root) => (write(join(root, "main.tf"), "x"), link(join(root, "main.tf"), join(root, "copy.tf"))), ["main.tf", "copy.tf"]),
    'illegal slug error: failed creating "/tmp/slug/copy.tf", unsupported file type 1',
  ],
  [
    "a hard link (nanotar)",
    () => nanotarArchive([{ name: "a.tf", data: "x" }, { name: "modules/b.tf", type: "1", linkname: "a.tf" }]),
    'illegal slug error: failed creating "/tmp/slug/modules/b.tf", unsupported file type 1',
  ],
  ["a FIFO (nanotar)", () => nanotarArchive([{ name: "pipe", type: "6" }]), 'illegal slug error: failed creating "/tmp/slug/pipe", unsupported file type 6'],
  [
    "a symlink whose target leaves the root (tar)",
    () => gnuTarArchive((root) => link("-s", "../../etc/passwd", join(root, "escape")), ["escape"]),
    'illegal slug error: invalid symlink ("escape" -> "../../etc/passwd") has external target',
  ],
  [
    "a symlink to an absolute path (nanotar)",
    () => nanotarArchive([{ name: "./modules/creds", type: "2", linkname: "/etc/secrets" }]),
    'illegal slug error: invalid symlink ("modules/creds" -> "/etc/secrets") has external target',
  ],
  [
    "a file extracted through a symlink packed before it (tar)",
    () => gnuTarArchive((root) => (write(join(root, "sub", "in.tf"), "x"), link("-s", "sub", join(root, "link"))), ["link", "link/in.tf"]),
    'illegal slug error: cannot extract "link/in.tf" through symlink',
  ],
  [
    "an absolute path (tar -P)",
    () => gnuTarArchive((root) => write(join(root, "main.tf"), "x"), ["-P", "--transform", "s,^,/etc/,", "main.tf"]),
    'failed to create directory "/etc": mkdirat /etc: path escapes from parent',
  ],
  [
    "an absolute path at the top (nanotar)",
    () => nanotarArchive([{ name: "/main.tf", data: "x" }]),
    'failed creating file "/tmp/slug/main.tf": openat /main.tf: path escapes from parent',
  ],
];

/** Archives go-slug extracts although they hold links or odd paths, with the files they hold. */
export const ACCEPTED_ARCHIVES: ReadonlyArray<readonly [what: string, build: () => Uint8Array, files: Record<string, string>]> = [
  [
    "a symlink inside the root, packed after what it points to (tar)",
    () => gnuTarArchive((root) => (write(join(root, "modules", "vpc", "main.tf"), "# vpc"), link("-s", "modules/vpc", join(root, "vpc"))), ["modules", "vpc"]),
    { "modules/vpc/main.tf": "# vpc" },
  ],
  [
    "a path with .. that stays inside, a macOS ._ file, an absolute directory entry (nanotar)",
    () => nanotarArchive([{ name: "modules/../main.tf", data: "x" }, { name: "._main.tf", data: "mac" }, { name: "/modules/" }]),
    { "main.tf": "x" },
  ],
];
