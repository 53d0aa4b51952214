/**
 * readConfigurationArchive: the files of archives written by our writer and by GNU tar in each of
 * its formats (ustar prefix, GNU long names, PAX), and go-slug's reason for everything else
 * (including the entries go-slug refuses: `..` traversal, absolute paths, links and other types).
 */
import { execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { gunzipSync, gzipSync } from "node:zlib";
import { describe, expect, it } from "vitest";
import { configurationArchive } from "../../../src/scenarios/runs/archive.js";
import { MAX_CONFIGURATION_BYTES, readConfigurationArchive } from "../../../src/simulator/runs/configuration-archive.js";
import { ACCEPTED_ARCHIVES, REFUSED_ARCHIVES, gnuTarArchive, nanotarArchive } from "../../support/archives.js";

const text = (bytes: Uint8Array): string => new TextDecoder().decode(bytes);
const tarOf = (files: Record<string, string>): Buffer => gunzipSync(configurationArchive(files));

function paths(bytes: Uint8Array): string[] {
  const reading = readConfigurationArchive(bytes);
  if (!reading.ok) throw new Error(reading.message);
  return reading.files.map((f) => f.path);
}

function messageOf(bytes: Uint8Array, maxBytes?: number): string {
  const reading = readConfigurationArchive(bytes, maxBytes);
  return reading.ok ? "ok" : reading.message;
}

/** A directory tree packed by GNU tar in `format`. */
function gnuTar(format: "gnu" | "ustar" | "pax", files: Record<string, string>): Uint8Array {
  const dir = mkdtempSync(join(tmpdir(), "cv-archive-"));
  const root = join(dir, "root");
  for (const [path, content] of Object.entries(files)) {
    mkdirSync(join(root, path, ".."), { recursive: true });
    writeFileSync(join(root, path), content);
  }
  execFileSync("tar", [`--format=${format}`, "-czf", join(dir, "out.tar.gz"), "-C", root, "."]);
  return new Uint8Array(readFileSync(join(dir, "out.tar.gz")));
}

describe("readConfigurationArchive reads the files a client packed", () => {
  it("reads configurationArchive's files with their bytes and modes", () => {
    const reading = readConfigurationArchive(configurationArchive({ "main.tf": "# main\n", "modules/x/main.tf": "", "ü.tf": "é" }));
    expect(reading.ok).toBe(true);
    if (!reading.ok) return;
    expect(reading.files.map((f) => [f.path, f.mode, text(f.bytes)])).toEqual([
      ["main.tf", 0o644, "# main\n"],
      ["modules/x/main.tf", 0o644, ""],
      ["ü.tf", 0o644, "é"],
    ]);
  });

  const deep = `${"d".repeat(60)}/${"e".repeat(60)}/main.tf`; // 129 bytes: ustar prefix, GNU long name or PAX path
  it.each(["gnu", "ustar", "pax"] as const)("reads GNU tar's %s format: ./ dropped, directories not listed, long and non-ASCII paths whole", (format) => {
    const files = { "main.tf": "# main\n", "modules/vpc/variables.tf": 'variable "x" {}\n', [deep]: "# deep\n", ...(format === "ustar" ? {} : { "ünï/çødé.tf": "# ü\n" }) };
    const reading = readConfigurationArchive(gnuTar(format, files));
    if (!reading.ok) throw new Error(reading.message);
    expect(Object.fromEntries(reading.files.map((f) => [f.path, text(f.bytes)]))).toEqual(files);
  });

  it("reads an archive without its end blocks, also when its last entry has no data", () => {
    const tar = tarOf({ "a.tf": "a", "empty.tf": "" });
    expect(paths(gzipSync(tar.subarray(0, tar.length - 1024)))).toEqual(["a.tf", "empty.tf"]);
    expect(paths(gzipSync(tar.subarray(0, tar.length - 512)))).toEqual(["a.tf", "empty.tf"]);
  });

  it("keeps the last of two entries with the same path, as extraction does", () => {
    const first = tarOf({ "main.tf": "old" });
    const second = tarOf({ "main.tf": "new" });
    const reading = readConfigurationArchive(gzipSync(Buffer.concat([first.subarray(0, 1024), second])));
    expect(reading.ok && reading.files.map((f) => text(f.bytes))).toEqual(["new"]);
  });
});

describe("readConfigurationArchive answers go-slug's reason for what is not a gzip-compressed tar", () => {

  it.each([
    ["an empty body", new Uint8Array(0), "failed to decompress slug: EOF"],
    ["a body shorter than a gzip header", new Uint8Array([0x1f, 0x8b, 8, 0, 1, 2, 3]), "failed to decompress slug: unexpected EOF"],
    ["plain text", new TextEncoder().encode('resource "null_resource" "x" {}\n'), "failed to decompress slug: gzip: invalid header"],
    ["a zip file", new Uint8Array([0x50, 0x4b, 3, 4, ...new Array<number>(40).fill(0)]), "failed to decompress slug: gzip: invalid header"],
    ["gzip of a short text", gzipSync("hello"), "failed to untar slug: unexpected EOF"],
    ["gzip of 1 KiB that is no tar header", gzipSync(Buffer.alloc(1024, 0x41)), "failed to untar slug: archive/tar: invalid tar header"],
    ["a gzip stream cut short", configurationArchive().subarray(0, 60), "failed to untar slug: unexpected EOF"],
  ])("%s", (_name, bytes, message) => {
    expect(messageOf(bytes)).toBe(message);
  });

  it("a tar entry cut short, a bad header checksum, a zero block followed by data", () => {
    const tar = tarOf({ "main.tf": "x".repeat(2000) });
    expect(messageOf(gzipSync(tar.subarray(0, 1536)))).toBe("failed to untar slug: unexpected EOF");
    const bad = Buffer.from(tar);
    bad[0] = 0x41; // the name changes, the stored checksum does not
    expect(messageOf(gzipSync(bad))).toBe("failed to untar slug: archive/tar: invalid tar header");
    const zeroThenData = Buffer.concat([Buffer.alloc(512), tar]);
    expect(messageOf(gzipSync(zeroThenData))).toBe("failed to untar slug: archive/tar: invalid tar header");
  });

  it("a gzip checksum that does not match, corrupt deflate data", () => {
    const archive = Buffer.from(configurationArchive());
    const crc = Buffer.from(archive);
    crc[crc.length - 6] = (crc[crc.length - 6] as number) ^ 1;
    expect(messageOf(crc)).toBe("failed to untar slug: gzip: invalid checksum");
    const corrupt = Buffer.from(archive);
    corrupt[10] = 0xff;
    expect(messageOf(corrupt)).toBe("failed to untar slug: flate: corrupt input");
  });

  it("gzip of nothing is an empty archive (no files), as Go reads it", () => {
    expect(paths(gzipSync(Buffer.alloc(0)))).toEqual([]);
  });

  it("stops inflating a decompression bomb at the cap instead of holding it", () => {
    const member = gzipSync(Buffer.alloc(1 << 20)); // 1 MiB of zeros in about 1 KB
    const bomb = Buffer.concat(new Array<Buffer>(MAX_CONFIGURATION_BYTES / (1 << 20) + 1).fill(member)); // 65 MiB inflated from 66 KB
    expect(bomb.length).toBeLessThan(100_000);
    expect(messageOf(bomb)).toBe(`failed to untar slug: archive larger than ${MAX_CONFIGURATION_BYTES} bytes uncompressed`);
    expect(messageOf(bomb.subarray(0, member.length * 4), 2 << 20)).toBe(`failed to untar slug: archive larger than ${2 << 20} bytes uncompressed`);
  });
});

describe("readConfigurationArchive refuses entries as go-slug's Unpack does", () => {
  it.each(REFUSED_ARCHIVES)("%s", (_what, build, message) => {
    expect(messageOf(build())).toBe(message);
  });

  it.each(ACCEPTED_ARCHIVES)("extracts %s", (_what, build, files) => {
    const reading = readConfigurationArchive(build());
    if (!reading.ok) throw new Error(reading.message);
    expect(Object.fromEntries(reading.files.map((file) => [file.path, text(file.bytes)]))).toEqual(files);
  });

  it("stops at the first refused entry, before a broken header after it", () => {
    const refused = gunzipSync(nanotarArchive([{ name: "../x.tf", data: "x" }]));
    const broken = Buffer.concat([refused.subarray(0, 1024), Buffer.alloc(512, 0x41)]);
    expect(messageOf(gzipSync(broken))).toBe('illegal slug error: invalid filename, traversal with ".." outside of current directory');
  });

  it("reads PAX paths and link targets whole (a space, a long link target), as Go does", () => {
    const files = { "my modules/main.tf": "# spaced" };
    expect(paths(gnuTar("pax", files))).toEqual(["my modules/main.tf"]);
    const target = `${"d/".repeat(60)}../../../..`;
    const longLink = gnuTarArchive((root) => execFileSync("ln", ["-s", `../${target}`, join(root, "far")]), ["--format=pax", "far"]);
    expect(messageOf(longLink)).toBe(`illegal slug error: invalid symlink ("far" -> "../${target}") has external target`);
  });

  it("quotes names as Go's %q does", () => {
    expect(messageOf(nanotarArchive([{ name: 'a"b\tc', type: "3" }]))).toBe('illegal slug error: failed creating "/tmp/slug/a\\"b\\tc", unsupported file type 3');
  });
});
