/**
 * The SSH wire encoding (RFC 4251 section 5): `uint32`, `uint64`, `string`, `mpint`, used by
 * public keys, private keys, signatures and certificates (OpenSSH PROTOCOL.certkeys).
 */

/**
 * A malformed SSH structure (short read, trailing bytes, bad mpint). Callers turn it into the service's error.
 * @example new SshReader(new Uint8Array([0, 0, 0, 9])).string() // throws SshFormatError "ssh: short read"
 */
export class SshFormatError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "SshFormatError";
  }
}

const encoder = new TextEncoder();

/**
 * Builds an SSH wire structure field by field.
 * @example new SshWriter().string("ssh-ed25519").string(key).bytes()
 */
export class SshWriter {
  private readonly parts: Uint8Array[] = [];

  /** Appends a big-endian unsigned 32-bit integer. */
  uint32(value: number): this {
    const b = new Uint8Array(4);
    new DataView(b.buffer).setUint32(0, value >>> 0);
    this.parts.push(b);
    return this;
  }

  /** Appends a big-endian unsigned 64-bit integer. */
  uint64(value: bigint): this {
    const b = new Uint8Array(8);
    new DataView(b.buffer).setBigUint64(0, BigInt.asUintN(64, value));
    this.parts.push(b);
    return this;
  }

  /** Appends a length-prefixed byte string (text is UTF-8 encoded). */
  string(value: Uint8Array | string): this {
    const bytes = typeof value === "string" ? encoder.encode(value) : value;
    this.uint32(bytes.length);
    this.parts.push(bytes);
    return this;
  }

  /** Appends a multiple-precision integer (two's complement, minimal, big-endian). */
  mpint(value: bigint): this {
    return this.string(mpintBytes(value));
  }

  /** Appends bytes as they are (no length prefix). */
  raw(bytes: Uint8Array): this {
    this.parts.push(bytes);
    return this;
  }

  /** The bytes written so far. */
  bytes(): Uint8Array {
    return concatBytes(this.parts);
  }
}

/**
 * Reads an SSH wire structure field by field; every read checks the bounds.
 * @example const reader = new SshReader(blob); reader.text() // "ssh-rsa"
 */
export class SshReader {
  private offset = 0;

  constructor(private readonly buffer: Uint8Array) {}

  /** Bytes not read yet. */
  get remaining(): number {
    return this.buffer.length - this.offset;
  }

  uint32(): number {
    const bytes = this.take(4);
    return new DataView(bytes.buffer, bytes.byteOffset, 4).getUint32(0);
  }

  uint64(): bigint {
    const bytes = this.take(8);
    return new DataView(bytes.buffer, bytes.byteOffset, 8).getBigUint64(0);
  }

  string(): Uint8Array {
    return this.take(this.uint32());
  }

  /** A string field decoded as UTF-8. */
  text(): string {
    return new TextDecoder().decode(this.string());
  }

  /** A non-negative mpint (keys never carry negative numbers). */
  mpint(): bigint {
    const bytes = this.string();
    if (bytes.length > 0 && (bytes[0] ?? 0) & 0x80) throw new SshFormatError("ssh: negative mpint");
    return bytesToBigint(bytes);
  }

  /** Everything not read yet. */
  rest(): Uint8Array {
    return this.take(this.remaining);
  }

  /** Fails unless everything was read. */
  end(): void {
    if (this.remaining !== 0) throw new SshFormatError("ssh: trailing junk in public key");
  }

  private take(length: number): Uint8Array {
    if (length > this.remaining) throw new SshFormatError("ssh: short read");
    const out = this.buffer.subarray(this.offset, this.offset + length);
    this.offset += length;
    return out;
  }
}

/**
 * The mpint encoding of a non-negative integer (empty for zero).
 * @example mpintBytes(0x80n) // Uint8Array [0x00, 0x80]
 */
export function mpintBytes(value: bigint): Uint8Array {
  if (value < 0n) throw new SshFormatError("ssh: negative mpint");
  if (value === 0n) return new Uint8Array(0);
  const magnitude = bigintToBytes(value);
  if ((magnitude[0] ?? 0) & 0x80) return concatBytes([new Uint8Array([0]), magnitude]);
  return magnitude;
}

/**
 * Unsigned big-endian bytes of a non-negative integer, minimal (or left-padded to `length`).
 * @example bigintToBytes(258n) // Uint8Array [1, 2]
 */
export function bigintToBytes(value: bigint, length?: number): Uint8Array {
  let hex = value.toString(16);
  if (hex.length % 2) hex = `0${hex}`;
  if (length !== undefined) hex = hex.padStart(length * 2, "0");
  const out = new Uint8Array(hex.length / 2);
  for (let i = 0; i < out.length; i++) out[i] = parseInt(hex.slice(2 * i, 2 * i + 2), 16);
  return out;
}

/**
 * The unsigned big-endian integer in `bytes`.
 * @example bytesToBigint(new Uint8Array([1, 2])) // 258n
 */
export function bytesToBigint(bytes: Uint8Array): bigint {
  if (bytes.length === 0) return 0n;
  let hex = "";
  for (const b of bytes) hex += b.toString(16).padStart(2, "0");
  return BigInt(`0x${hex}`);
}

/**
 * Joins byte arrays.
 * @example concatBytes([a, b]).length === a.length + b.length
 */
export function concatBytes(parts: readonly Uint8Array[]): Uint8Array {
  let length = 0;
  for (const p of parts) length += p.length;
  const out = new Uint8Array(length);
  let offset = 0;
  for (const p of parts) {
    out.set(p, offset);
    offset += p.length;
  }
  return out;
}

/**
 * base64url (no padding) of a non-negative integer, as JWK wants it.
 * @example bigintToBase64Url(65537n) // "AQAB"
 */
export function bigintToBase64Url(value: bigint, length?: number): string {
  return Buffer.from(bigintToBytes(value, length)).toString("base64url");
}

/**
 * The integer in a base64url JWK member.
 * @example base64UrlToBigint("AQAB") // 65537n
 */
export function base64UrlToBigint(text: string): bigint {
  return bytesToBigint(new Uint8Array(Buffer.from(text, "base64url")));
}
