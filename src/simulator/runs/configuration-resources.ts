/**
 * The managed resources a configuration declares: the `resource` blocks of the root module's `.tf`
 * and `.tf.json` files (spec: "Configuration versions"; the fake plans from them,
 * docs/decisions/runs.md, "Plan and apply logs"). Modules, `count` and `for_each` are not expanded:
 * one block is one resource instance.
 */
import { readConfigurationArchive } from "./configuration-archive.js";

/** Archives read lately, newest last (runs plan the same archive over and over), as in checkConfigurationArchive. */
const read: { readonly bytes: Uint8Array; readonly addresses: readonly string[] | undefined }[] = [];
const READ_KEPT = 8;
const READ_MAX_BYTES = 1024 * 1024;

/**
 * The addresses (`<type>.<name>`) of the resource blocks in a configuration archive's root module,
 * in archive order then file order; `undefined` when the archive cannot be read. The answer for the
 * same bytes is always the same, so the last few archives (up to 1 MiB each) are remembered with a
 * copy of their bytes: 10,000 runs of one archive inflate it once (about 130 us a read otherwise).
 * @param archive - the uploaded `.tar.gz` bytes.
 * @example
 * configurationResources(configurationArchive({ "main.tf": 'resource "null_resource" "foo" {}' })) // ["null_resource.foo"]
 */
export function configurationResources(archive: Uint8Array): string[] | undefined {
  const view = Buffer.from(archive.buffer, archive.byteOffset, archive.byteLength);
  for (let i = read.length - 1; i >= 0; i--) {
    const known = read[i] as (typeof read)[number];
    if (known.bytes.byteLength === archive.byteLength && view.equals(known.bytes)) return known.addresses === undefined ? undefined : [...known.addresses];
  }
  const addresses = resourcesOf(archive);
  if (archive.byteLength <= READ_MAX_BYTES) {
    if (read.length === READ_KEPT) read.shift();
    read.push({ bytes: Buffer.from(archive), addresses: addresses === undefined ? undefined : Object.freeze([...addresses]) });
  }
  return addresses;
}

function resourcesOf(archive: Uint8Array): string[] | undefined {
  const reading = readConfigurationArchive(archive);
  if (!reading.ok) return undefined;
  const out: string[] = [];
  for (const file of reading.files) {
    if (file.path.includes("/")) continue; // only the root module's files are read without a module block
    const text = new TextDecoder().decode(file.bytes);
    if (file.path.endsWith(".tf")) out.push(...hclResources(text));
    else if (file.path.endsWith(".tf.json")) out.push(...jsonResources(text));
  }
  return out;
}

/** Comments and strings' insides removed, so `resource` inside them is not a block. */
function withoutComments(text: string): string {
  return text.replace(/\/\*[\s\S]*?\*\/|(?:#|\/\/)[^\n]*/g, (match) => match.replace(/[^\n]/g, " "));
}

const LABEL = String.raw`(?:"([^"\n]+)"|([A-Za-z_][A-Za-z0-9_-]*))`;
const RESOURCE_BLOCK = new RegExp(String.raw`^[ \t]*resource[ \t]+${LABEL}[ \t]+${LABEL}[ \t]*\{`, "gm");

/**
 * The resource addresses of one HCL file (native syntax), in file order.
 * @example
 * hclResources('resource "null_resource" "foo" {}\nresource aws_instance web {\n}') // ["null_resource.foo", "aws_instance.web"]
 */
export function hclResources(text: string): string[] {
  const out: string[] = [];
  for (const match of withoutComments(text).matchAll(RESOURCE_BLOCK)) {
    const type = match[1] ?? match[2];
    const name = match[3] ?? match[4];
    if (type !== undefined && name !== undefined) out.push(`${type}.${name}`);
  }
  return out;
}

/**
 * The resource addresses of one JSON configuration file (`{"resource": {"<type>": {"<name>": {...}}}}`);
 * none when it is not such an object.
 * @example
 * jsonResources('{"resource":{"null_resource":{"a":{},"b":{}}}}') // ["null_resource.a", "null_resource.b"]
 */
export function jsonResources(text: string): string[] {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    return [];
  }
  const blocks = Array.isArray(parsed) ? parsed : [parsed];
  const out: string[] = [];
  for (const block of blocks) {
    const resource = isObject(block) ? block.resource : undefined;
    for (const group of Array.isArray(resource) ? resource : [resource]) {
      if (!isObject(group)) continue;
      for (const [type, byName] of Object.entries(group)) {
        for (const named of Array.isArray(byName) ? byName : [byName]) {
          if (isObject(named)) for (const name of Object.keys(named)) out.push(`${type}.${name}`);
        }
      }
    }
  }
  return out;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
