import { createECDH, createPublicKey, verify } from "node:crypto";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { IdSource } from "../../../../src/simulator/kernel/ids.js";
import { CURVE_ORDERS, signEcdsaDeterministic } from "../../../../src/simulator/secrets/ssh/deterministic-ecdsa.js";
import { generateEcdsa } from "../../../../src/simulator/secrets/seeded-keys.js";
import { CURVES, type EcdsaCurve } from "../../../../src/simulator/secrets/ssh/public-key.js";

const text = (s: string): Uint8Array => new TextEncoder().encode(s);
const big = (h: string): bigint => BigInt(`0x${h}`);

describe("deterministic ECDSA (RFC 6979)", () => {
  it("reproduces the RFC's P-256/SHA-256 vectors (A.2.5)", () => {
    const x = big("C9AFA9D845BA75166B5C215767B1D6934E50C3DB36E89B127B8A622B120F6721");
    expect(signEcdsaDeterministic("nistp256", x, text("sample"))).toEqual({
      r: big("EFD48B2AACB6A8FD1140DD9CD45E81D69D2C877B56AAF991C34D0EA84EAF3716"),
      s: big("F7CB1C942D657C41D436C7A1B6E29F65F3E900DBB9AFF4064DC4AB2F843ACDA8"),
    });
    expect(signEcdsaDeterministic("nistp256", x, text("test"))).toEqual({
      r: big("F1ABB023518351CD71D881567B1EA663ED3EFCF6C5132B354F28D3B0B7D38367"),
      s: big("019F4113742A2B14BD25926B49C649155F267E60D3814B4C0CC84250E46F0083"),
    });
  });

  it("reproduces the RFC's P-384/SHA-384 vector (A.2.6)", () => {
    const x = big("6B9D3DAD2E1B8C1C05B19875B6659F4DE23C3B667BF297BA9AA47740787137D896D5724E4C70A825F872C9EA60D2EDF5");
    expect(signEcdsaDeterministic("nistp384", x, text("sample"))).toEqual({
      r: big("94EDBB92A5ECB8AAD4736E56C691916B3F88140666CE9FA73D64C4EA95AD133C81A648152E44ACF96E36DD1E80FABE46"),
      s: big("99EF4AEB15F178CEA1FE40DB2603138F130E740A19624526203B6351D0A3A94FA329C145786E679E7B82C71A38628AC8"),
    });
  });

  it("reproduces the RFC's P-521/SHA-512 vector (A.2.7)", () => {
    const x = big(
      "0FAD06DAA62BA3B25D2FB40133DA757205DE67F5BB0018FEE8C86E1B68C7E75CAA896EB32F1F47C70855836A6D16FCC1466F6D8FBEC67DB89EC0C08B0E996B83538",
    );
    expect(signEcdsaDeterministic("nistp521", x, text("sample"))).toEqual({
      r: big("00C328FAFCBD79DD77850370C46325D987CB525569FB63C5D3BC53950E6D4C5F174E25A1EE9017B5D450606ADD152B534931D7D4E8455CC91F9B15BF05EC36E377FA"),
      s: big("00617CCE7CF5064806C467F678D3B4080D6F1CC50AF26CA209417308281B68AF282623EAA63E5B5C0723D8B8C37FF0777B1A20F8CCB1DCCC43997F1EE0E44DA4A67A"),
    });
  });

  it("gives signatures node:crypto verifies, the same every time, on every curve", () => {
    const curves: EcdsaCurve[] = ["nistp256", "nistp384", "nistp521"];
    fc.assert(
      fc.property(fc.constantFrom(...curves), fc.uint8Array({ maxLength: 200 }), fc.integer(), (curve, message, seed) => {
        const key = generateEcdsa(new IdSource(seed), curve);
        const d = BigInt(`0x${Buffer.from(key.export({ format: "jwk" }).d ?? "", "base64url").toString("hex")}`);
        const first = signEcdsaDeterministic(curve, d, message);
        expect(signEcdsaDeterministic(curve, d, message)).toEqual(first);
        expect(first.r > 0n && first.r < CURVE_ORDERS[curve] && first.s > 0n && first.s < CURVE_ORDERS[curve]).toBe(true);
        const size = CURVES[curve].bytes;
        const p1363 = Buffer.from(first.r.toString(16).padStart(2 * size, "0") + first.s.toString(16).padStart(2 * size, "0"), "hex");
        expect(verify(CURVES[curve].hash, message, { key: createPublicKey(key), dsaEncoding: "ieee-p1363" }, p1363)).toBe(true);
      }),
      { numRuns: 30 },
    );
  });

  it("uses the real curve orders: (n-1)*G is -G, the base point mirrored", () => {
    for (const curve of ["nistp256", "nistp384", "nistp521"] as const) {
      const size = CURVES[curve].bytes;
      const times = (k: bigint): Buffer => {
        const ecdh = createECDH(CURVES[curve].nodeName);
        ecdh.setPrivateKey(Buffer.from(k.toString(16).padStart(2 * size, "0"), "hex"));
        return ecdh.getPublicKey();
      };
      const g = times(1n);
      const minusG = times(CURVE_ORDERS[curve] - 1n);
      expect(minusG.subarray(1, 1 + size).equals(g.subarray(1, 1 + size)), curve).toBe(true);
      expect(minusG.subarray(1 + size).equals(g.subarray(1 + size)), curve).toBe(false);
    }
  });
});
