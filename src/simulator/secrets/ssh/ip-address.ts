/**
 * IP addresses and CIDR blocks as the SSH engine reads them (Go's `net.ParseIP`, `net.ParseCIDR`
 * and `IPNet.Contains`): IPv4 dotted decimal without leading zeros, IPv6 with `::` and an embedded
 * IPv4 tail, IPv4-mapped IPv6 addresses treated as IPv4, canonical text forms for answers.
 *
 * Spec: secrets.md "SSH engine" (`cidr_list`, `exclude_cidr_list`, `ip` of `creds` and `lookup`).
 */

/** A parsed address: 4 bytes for IPv4 (including IPv4-mapped IPv6), 16 for IPv6. */
export interface IpAddress {
  readonly family: 4 | 6;
  readonly bytes: readonly number[];
}

/** A parsed CIDR block: the masked network address and the prefix length. */
export interface CidrBlock {
  readonly family: 4 | 6;
  readonly network: readonly number[];
  readonly prefix: number;
}

/**
 * Parses an IP address the way Go's `net.ParseIP` does.
 * @returns the address, or `undefined` when `text` is not an IP address.
 * @example parseIp("10.0.0.5") // { family: 4, bytes: [10, 0, 0, 5] }
 */
export function parseIp(text: string): IpAddress | undefined {
  const v4 = parseIpv4(text);
  if (v4 !== undefined) return { family: 4, bytes: v4 };
  const v6 = parseIpv6(text);
  if (v6 === undefined) return undefined;
  if (isV4Mapped(v6)) return { family: 4, bytes: v6.slice(12) };
  return { family: 6, bytes: v6 };
}

/**
 * The canonical text of an address (Go's `IP.String()`): dotted decimal for IPv4, RFC 5952 for IPv6.
 * @example formatIp(parseIp("2001:DB8:0:0:0:0:0:1")!) // "2001:db8::1"
 */
export function formatIp(ip: IpAddress): string {
  if (ip.family === 4) return ip.bytes.join(".");
  const groups: number[] = [];
  for (let i = 0; i < 16; i += 2) groups.push(((ip.bytes[i] ?? 0) << 8) | (ip.bytes[i + 1] ?? 0));
  let bestStart = -1;
  let bestLength = 0;
  for (let i = 0; i < 8; ) {
    if (groups[i] !== 0) {
      i++;
      continue;
    }
    let j = i;
    while (j < 8 && groups[j] === 0) j++;
    if (j - i > bestLength && j - i >= 2) {
      bestStart = i;
      bestLength = j - i;
    }
    i = j;
  }
  const hex = (g: number): string => g.toString(16);
  if (bestStart < 0) return groups.map(hex).join(":");
  const head = groups.slice(0, bestStart).map(hex).join(":");
  const tail = groups.slice(bestStart + bestLength).map(hex).join(":");
  return `${head}::${tail}`;
}

/**
 * Parses a CIDR block the way Go's `net.ParseCIDR` does (host bits may be set; they are masked off).
 * @returns the block, or `undefined` when `text` is not a CIDR block.
 * @example parseCidr("10.0.0.0/8") // { family: 4, network: [10, 0, 0, 0], prefix: 8 }
 */
export function parseCidr(text: string): CidrBlock | undefined {
  const slash = text.indexOf("/");
  if (slash < 0) return undefined;
  const addressText = text.slice(0, slash);
  const prefixText = text.slice(slash + 1);
  if (!/^\d{1,3}$/.test(prefixText)) return undefined;
  const prefix = Number(prefixText);
  const v4 = parseIpv4(addressText);
  if (v4 !== undefined) {
    if (prefix > 32) return undefined;
    return { family: 4, network: mask(v4, prefix), prefix };
  }
  const v6 = parseIpv6(addressText);
  if (v6 === undefined || prefix > 128) return undefined;
  const network = mask(v6, prefix);
  // Go compares an IPv4-mapped network as IPv4 (IPNet.Contains uses To4 on the network number).
  if (isV4Mapped(network) && prefix >= 96) return { family: 4, network: network.slice(12), prefix: prefix - 96 };
  return { family: 6, network, prefix };
}

/**
 * Whether `block` contains `ip` (an IPv4 address is never inside an IPv6 block, as in Go).
 * @example cidrContains(parseCidr("10.0.0.0/8")!, parseIp("10.1.2.3")!) // true
 */
export function cidrContains(block: CidrBlock, ip: IpAddress): boolean {
  if (block.family !== ip.family) return false;
  const masked = mask(ip.bytes, block.prefix);
  return masked.every((b, i) => b === block.network[i]);
}

/**
 * Splits a comma-separated CIDR list (entries trimmed, empty entries skipped) and parses each.
 * @returns the blocks, or the first entry that is not a CIDR block.
  * @example parseCidrList("10.0.0.0/8, nope").invalid // "nope"
 */
export function parseCidrList(list: string): { blocks: CidrBlock[]; invalid?: string } {
  const blocks: CidrBlock[] = [];
  for (const raw of list.split(",")) {
    const entry = raw.trim();
    if (entry === "") continue;
    const block = parseCidr(entry);
    if (block === undefined) return { blocks, invalid: entry };
    blocks.push(block);
  }
  return { blocks };
}

/**
 * Whether any block of a comma-separated CIDR list contains `ip` (invalid entries never match).
 * @example cidrListContains("192.168.0.0/16,10.0.0.0/8", parseIp("10.0.0.1")!) // true
 */
export function cidrListContains(list: string, ip: IpAddress): boolean {
  return parseCidrList(list).blocks.some((block) => cidrContains(block, ip));
}

function mask(bytes: readonly number[], prefix: number): number[] {
  return bytes.map((b, i) => {
    const bitsHere = Math.max(0, Math.min(8, prefix - i * 8));
    return b & ((0xff << (8 - bitsHere)) & 0xff);
  });
}

function isV4Mapped(bytes: readonly number[]): boolean {
  for (let i = 0; i < 10; i++) if (bytes[i] !== 0) return false;
  return bytes[10] === 0xff && bytes[11] === 0xff;
}

function parseIpv4(text: string): number[] | undefined {
  const parts = text.split(".");
  if (parts.length !== 4) return undefined;
  const out: number[] = [];
  for (const part of parts) {
    if (!/^\d{1,3}$/.test(part)) return undefined;
    if (part.length > 1 && part.startsWith("0")) return undefined;
    const value = Number(part);
    if (value > 255) return undefined;
    out.push(value);
  }
  return out;
}

function parseIpv6(text: string): number[] | undefined {
  if (text.length === 0 || text.includes("%")) return undefined;
  const doubleColon = text.indexOf("::");
  if (doubleColon >= 0 && text.indexOf("::", doubleColon + 1) >= 0) return undefined;
  const parseGroups = (part: string, allowV4Tail: boolean): number[] | undefined => {
    if (part === "") return [];
    const pieces = part.split(":");
    const out: number[] = [];
    for (let i = 0; i < pieces.length; i++) {
      const piece = pieces[i] ?? "";
      if (allowV4Tail && i === pieces.length - 1 && piece.includes(".")) {
        const v4 = parseIpv4(piece);
        if (v4 === undefined) return undefined;
        out.push(((v4[0] ?? 0) << 8) | (v4[1] ?? 0), ((v4[2] ?? 0) << 8) | (v4[3] ?? 0));
        continue;
      }
      if (!/^[0-9a-fA-F]{1,4}$/.test(piece)) return undefined;
      out.push(parseInt(piece, 16));
    }
    return out;
  };
  let groups: number[];
  if (doubleColon >= 0) {
    const head = parseGroups(text.slice(0, doubleColon), false);
    const tail = parseGroups(text.slice(doubleColon + 2), true);
    if (head === undefined || tail === undefined) return undefined;
    const missingGroups = 8 - head.length - tail.length;
    if (missingGroups < 1) return undefined;
    groups = [...head, ...new Array<number>(missingGroups).fill(0), ...tail];
  } else {
    const all = parseGroups(text, true);
    if (all === undefined || all.length !== 8) return undefined;
    groups = all;
  }
  const bytes: number[] = [];
  for (const g of groups) bytes.push((g >> 8) & 0xff, g & 0xff);
  return bytes;
}
