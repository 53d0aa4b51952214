import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { cidrContains, cidrListContains, formatIp, parseCidr, parseCidrList, parseIp } from "../../../../src/simulator/secrets/ssh/ip-address.js";

describe("IP addresses and CIDR blocks (Go net semantics)", () => {
  it("parses IPv4 and IPv6 forms Go accepts and prints them canonically", () => {
    const canonical = (text: string): string | undefined => {
      const ip = parseIp(text);
      return ip === undefined ? undefined : formatIp(ip);
    };
    expect(canonical("10.0.0.5")).toBe("10.0.0.5");
    expect(canonical("2001:DB8:0:0:0:0:0:1")).toBe("2001:db8::1");
    expect(canonical("::")).toBe("::");
    expect(canonical("::1")).toBe("::1");
    expect(canonical("fe80::1:0:0:1")).toBe("fe80::1:0:0:1");
    expect(canonical("1:0:0:2:0:0:0:3")).toBe("1:0:0:2::3");
    expect(canonical("::ffff:10.1.2.3")).toBe("10.1.2.3");
    expect(canonical("64:ff9b::192.0.2.33")).toBe("64:ff9b::c000:221");
  });

  it("refuses what Go refuses", () => {
    for (const bad of ["", "10.0.0", "10.0.0.256", "010.0.0.1", "1.2.3.4.5", "1::2::3", "12345::", "fe80::1%eth0", "host.example", ":1::", "1:2:3:4:5:6:7:8:9", "1.2.3.4/8"]) {
      expect(parseIp(bad), bad).toBeUndefined();
    }
  });

  it("matches addresses against blocks, IPv4 never inside IPv6 blocks", () => {
    const block = parseCidr("10.0.0.0/8");
    expect(block).toEqual({ family: 4, network: [10, 0, 0, 0], prefix: 8 });
    expect(cidrContains(block!, parseIp("10.255.0.1")!)).toBe(true);
    expect(cidrContains(block!, parseIp("11.0.0.1")!)).toBe(false);
    expect(cidrContains(parseCidr("10.1.2.3/16")!, parseIp("10.1.200.1")!)).toBe(true);
    expect(cidrContains(parseCidr("::/0")!, parseIp("10.0.0.1")!)).toBe(false);
    expect(cidrContains(parseCidr("0.0.0.0/0")!, parseIp("::ffff:1.2.3.4")!)).toBe(true);
    expect(cidrContains(parseCidr("2001:db8::/32")!, parseIp("2001:db8:ffff::1")!)).toBe(true);
    expect(cidrContains(parseCidr("::ffff:10.0.0.0/104")!, parseIp("10.9.9.9")!)).toBe(true);
  });

  it("reads comma-separated lists, trimming entries and naming the first bad one", () => {
    expect(parseCidrList("10.0.0.0/8, 192.168.0.0/16,").blocks).toHaveLength(2);
    expect(parseCidrList("10.0.0.0/8,nope").invalid).toBe("nope");
    expect(parseCidrList("10.0.0.0/33").invalid).toBe("10.0.0.0/33");
    expect(cidrListContains("192.168.0.0/16, 10.0.0.0/8", parseIp("10.3.3.3")!)).toBe(true);
    expect(cidrListContains("", parseIp("10.3.3.3")!)).toBe(false);
  });

  it("round-trips every IPv4 and IPv6 address through its canonical text", () => {
    fc.assert(fc.property(fc.ipV4(), (text) => {
        expect(formatIp(parseIp(text)!)).toBe(text);
      }));
    fc.assert(
      fc.property(fc.ipV6(), (text) => {
        const ip = parseIp(text);
        expect(ip).toBeDefined();
        const again = parseIp(formatIp(ip!));
        expect(again).toEqual(ip);
      }),
    );
  });

  it("a block contains exactly the addresses sharing its prefix bits", () => {
    fc.assert(
      fc.property(fc.ipV4(), fc.ipV4(), fc.integer({ min: 0, max: 32 }), (net, addr, prefix) => {
        const toInt = (t: string): number => t.split(".").reduce((acc, p) => acc * 256 + Number(p), 0);
        const mask = prefix === 0 ? 0 : Number((0xffffffffn << BigInt(32 - prefix)) & 0xffffffffn);
        const expected = ((toInt(net) & mask) >>> 0) === ((toInt(addr) & mask) >>> 0);
        expect(cidrContains(parseCidr(`${net}/${prefix}`)!, parseIp(addr)!)).toBe(expected);
      }),
    );
  });
});
