import { expect, it } from "vitest";
import { describeEachTransport } from "../../support/transports.js";
import { startAcl } from "./support.js";

describeEachTransport("access-control: token expiry limits", (t) => {
  it("accepts ExpirationTTL forms from 1 minute to 24 hours and refuses the rest", async () => {
    const h = await startAcl(t);
    const accepted: [unknown, string][] = [
      ["60s", "2024-01-01T00:01:00Z"],
      ["5m", "2024-01-01T00:05:00Z"],
      ["1h30m", "2024-01-01T01:30:00Z"],
      ["24h", "2024-01-02T00:00:00Z"],
      [300_000_000_000, "2024-01-01T00:05:00Z"],
    ];
    for (const [ttl, expiry] of accepted) {
      const answer = await h.call("PUT", "/acl/token", { body: { ExpirationTTL: ttl } });
      expect({ ttl, status: answer.status, expiry: answer.json.ExpirationTime }).toEqual({ ttl, status: 200, expiry });
      expect(answer.json.ExpirationTTL).toBeUndefined();
      expect((await h.call("GET", `/acl/token/${answer.json.AccessorID}`)).json.ExpirationTTL).toBeUndefined();
    }
    const refused: [unknown, string][] = [
      ["10s", "Token Expiration TTL '10s' should be > 1m0s"],
      ["59s", "Token Expiration TTL '59s' should be > 1m0s"],
      ["24h0m1s", "Token Expiration TTL '24h0m1s' should be < 24h0m0s"],
      ["25h", "Token Expiration TTL '25h0m0s' should be < 24h0m0s"],
      ["-5m", "Token Expiration TTL '-5m0s' should be > 0"],
      // Go's Duration.String below a millisecond (this double once wrote `0.5ms`).
      ["500us", "Token Expiration TTL '500µs' should be > 1m0s"],
      ["1.5µs", "Token Expiration TTL '1.5µs' should be > 1m0s"],
      [750, "Token Expiration TTL '750ns' should be > 1m0s"],
      ["24h0m0.0000005s", "Token Expiration TTL '24h0m0.0000005s' should be < 24h0m0s"],
    ];
    for (const [ttl, message] of refused) {
      const answer = await h.call("PUT", "/acl/token", { body: { ExpirationTTL: ttl } });
      expect({ ttl, status: answer.status, text: answer.text }).toEqual({ ttl, status: 500, text: message });
    }
    const both = await h.call("PUT", "/acl/token", { body: { ExpirationTTL: "5m", ExpirationTime: "2024-01-01T00:10:00Z" } });
    expect([both.status, both.text]).toEqual([500, "Token Expiration TTL and Expiration Time cannot both be set"]);
    expect(h.acl.tokens()).toHaveLength(2 + accepted.length);
  });

  it("accepts ExpirationTime from 1 minute to 24 hours ahead and refuses the rest", async () => {
    const h = await startAcl(t);
    h.doubles.advance("1h");
    for (const [time, expiry] of [
      ["2024-01-01T01:01:00Z", "2024-01-01T01:01:00Z"],
      ["2024-01-02T01:00:00Z", "2024-01-02T01:00:00Z"],
      ["2024-01-01T03:30:00+02:00", "2024-01-01T01:30:00Z"],
      ["2024-01-01T01:10:00.250Z", "2024-01-01T01:10:00.25Z"],
    ]) {
      const answer = await h.call("PUT", "/acl/token", { body: { ExpirationTime: time } });
      expect({ time, status: answer.status, expiry: answer.json.ExpirationTime }).toEqual({ time, status: 200, expiry });
    }
    for (const [time, message] of [
      ["2024-01-01T01:00:30Z", "ExpirationTime cannot be less than 1m0s in the future (was 30s)"],
      ["2024-01-02T02:00:00Z", "ExpirationTime cannot be more than 24h0m0s in the future (was 25h0m0s)"],
      ["2024-01-01T00:59:00Z", "ExpirationTime cannot be before CreateTime"],
    ]) {
      const answer = await h.call("PUT", "/acl/token", { body: { ExpirationTime: time } });
      expect({ time, status: answer.status, text: answer.text }).toEqual({ time, status: 500, text: message });
    }
  });
});

describeEachTransport("access-control: token expiry on the simulator clock", (t) => {
  it("revokes a token when the clock reaches its ExpirationTime: not usable, not listed, not readable", async () => {
    // A token is usable exactly while now < ExpirationTime: 1 ms before it still works, and
    // advancing by exactly the TTL revokes it.
    const h = await startAcl(t);
    h.acl.createPolicy({ name: "acl-read", rules: 'acl = "read"' });
    const token = (await h.call("PUT", "/acl/token", { body: { Policies: [{ Name: "acl-read" }], ExpirationTTL: "5m" } })).json;
    expect(token.ExpirationTime).toBe("2024-01-01T00:05:00Z");
    h.doubles.advance(5 * 60_000 - 1);
    expect((await h.call("GET", "/acl/token/self", { token: token.SecretID })).status).toBe(200);
    expect((await h.call("GET", "/acl/tokens", { token: token.SecretID })).status).toBe(200);
    expect((await h.call("GET", "/acl/tokens")).json.map((x: { AccessorID: string }) => x.AccessorID)).toContain(token.AccessorID);
    h.doubles.advance(1);
    const self = await h.call("GET", "/acl/token/self", { token: token.SecretID });
    expect([self.status, self.text]).toEqual([403, "ACL not found"]);
    const used = await h.call("GET", "/acl/tokens", { token: token.SecretID });
    expect([used.status, used.text]).toEqual([403, "ACL not found"]);
    const list = await h.call("GET", "/acl/tokens");
    expect(list.json.map((x: { AccessorID: string }) => x.AccessorID)).not.toContain(token.AccessorID);
    const read = await h.call("GET", `/acl/token/${token.AccessorID}`);
    expect([read.status, read.text]).toEqual([404, "Requested token does not exist: ACL not found"]);
    const update = await h.call("PUT", `/acl/token/${token.AccessorID}`, { body: {} });
    expect([update.status, update.text]).toEqual([500, `Cannot find token "${token.AccessorID}"`]);
    const clone = await h.call("PUT", `/acl/token/${token.AccessorID}/clone`, { body: {} });
    expect([clone.status, clone.text]).toEqual([403, "ACL not found"]);
    expect((await h.call("DELETE", `/acl/token/${token.AccessorID}`)).text).toBe("true");
    expect(h.acl.token(token.AccessorID)).toBeUndefined();
  });

  it("shows expiry after a single big jump in time, and clones carry the source's expiry", async () => {
    const h = await startAcl(t);
    const token = h.acl.createToken({ expirationTtl: "2h" });
    const clone = (await h.call("PUT", `/acl/token/${token.accessorId}/clone`, { body: {} })).json;
    expect(clone.ExpirationTime).toBe("2024-01-01T02:00:00Z");
    h.doubles.advance("1h59m30s");
    const late = await h.call("PUT", `/acl/token/${token.accessorId}/clone`, { body: {} });
    expect([late.status, late.text]).toEqual([500, "ExpirationTime cannot be less than 1m0s in the future (was 30s)"]);
    h.doubles.advance("3h");
    expect((await h.call("GET", "/acl/token/self", { token: token.secretId })).status).toBe(403);
    expect((await h.call("GET", "/acl/token/self", { token: clone.SecretID })).status).toBe(403);
    expect(h.acl.tokens().map((x) => x.accessorId)).not.toContain(clone.AccessorID);
  });
});
