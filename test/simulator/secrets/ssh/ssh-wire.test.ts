import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { bytesToBigint, mpintBytes, SshFormatError, SshReader, SshWriter } from "../../../../src/simulator/secrets/ssh/ssh-wire.js";

const hex = (bytes: Uint8Array): string => Buffer.from(bytes).toString("hex");

describe("ssh wire encoding (RFC 4251 section 5)", () => {
  it("encodes the RFC's mpint examples", () => {
    expect(hex(mpintBytes(0n))).toBe("");
    expect(hex(mpintBytes(0x9a378f9b2e332a7n))).toBe("09a378f9b2e332a7");
    expect(hex(mpintBytes(0x80n))).toBe("0080");
    expect(hex(new SshWriter().mpint(0x80n).bytes())).toBe("000000020080");
  });

  it("reads back what it writes, for any field sequence", () => {
    fc.assert(
      fc.property(fc.bigInt({ min: 0n, max: (1n << 600n) - 1n }), fc.string(), fc.integer({ min: 0, max: 0xffffffff }), fc.bigInt({ min: 0n, max: (1n << 64n) - 1n }), (n, s, u32, u64) => {
        const bytes = new SshWriter().mpint(n).string(s).uint32(u32).uint64(u64).bytes();
        const reader = new SshReader(bytes);
        expect(reader.mpint()).toBe(n);
        expect(reader.text()).toBe(s);
        expect(reader.uint32()).toBe(u32);
        expect(reader.uint64()).toBe(u64);
        reader.end();
      }),
    );
  });

  it("refuses short reads, trailing bytes and negative mpints", () => {
    expect(() => new SshReader(new Uint8Array([0, 0, 0, 5, 1])).string()).toThrow(SshFormatError);
    expect(() => new SshReader(new Uint8Array([1])).end()).toThrow("trailing junk");
    expect(() => new SshReader(new Uint8Array([0, 0, 0, 1, 0x80])).mpint()).toThrow("negative mpint");
  });

  it("keeps bytes and integers in step", () => {
    fc.assert(fc.property(fc.bigInt({ min: 1n, max: 1n << 300n }), (n) => {
      expect(bytesToBigint(mpintBytes(n))).toBe(n);
    }));
  });
});
