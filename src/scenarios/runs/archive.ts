/**
 * Builds small `.tar.gz` configuration archives (ustar + gzip, deterministic: mtime 0) for uploads
 * and VCS commits in tests.
 */
import { gzipSync } from "node:zlib";
import { UsageError } from "../../simulator/kernel/errors.js";

/**
 * A `.tar.gz` archive holding `files` (path -> UTF-8 content), byte-identical for the same input.
 *
 * @param files - e.g. `{ "main.tf": 'resource "null_resource" "x" {}' }`; paths up to 100 bytes.
 * @returns the gzip-compressed tar bytes.
 * @throws {UsageError} when `files` is not an object of path -> string, or a path is empty or longer than 100 bytes.
 * @example
 * const archive = configurationArchive({ "main.tf": 'output "hello" { value = "world" }' });
 * await fetch(uploadUrl, { method: "PUT", headers: { "content-type": "application/octet-stream" }, body: archive });
 */
export function configurationArchive(files: Readonly<Record<string, string>> = { "main.tf": DEFAULT_MAIN_TF }): Uint8Array<ArrayBuffer> {
  if (files === null || typeof files !== "object" || Array.isArray(files)) throw new UsageError("runs: archive files must be an object of path -> content");
  const blocks: Buffer[] = [];
  for (const [path, content] of Object.entries(files)) {
    if (typeof content !== "string") throw new UsageError(`runs: archive file ${JSON.stringify(path)} must have string content`);
    const data = Buffer.from(content, "utf8");
    blocks.push(header(path, data.length), data, Buffer.alloc((512 - (data.length % 512)) % 512));
  }
  blocks.push(Buffer.alloc(1024));
  return new Uint8Array(gzipSync(Buffer.concat(blocks), { level: 9 }));
}

/**
 * The configuration of the default archive.
 * @example
 * configurationArchive({ "main.tf": DEFAULT_MAIN_TF })
 */
export const DEFAULT_MAIN_TF = 'resource "null_resource" "example" {}\n';

function header(path: string, size: number): Buffer {
  const block = Buffer.alloc(512);
  const name = Buffer.from(path, "utf8");
  if (name.length === 0 || name.length > 100) throw new UsageError(`runs: archive paths must be 1 to 100 bytes long: ${JSON.stringify(path)}`);
  name.copy(block, 0);
  block.write("0000644\0", 100, "ascii");
  block.write("0000000\0", 108, "ascii");
  block.write("0000000\0", 116, "ascii");
  block.write(`${size.toString(8).padStart(11, "0")}\0`, 124, "ascii");
  block.write("00000000000\0", 136, "ascii");
  block.write("        ", 148, "ascii");
  block.write("0", 156, "ascii");
  block.write("ustar\0", 257, "ascii");
  block.write("00", 263, "ascii");
  let sum = 0;
  for (const byte of block) sum += byte;
  block.write(`${sum.toString(8).padStart(6, "0")}\0 `, 148, "ascii");
  return block;
}
