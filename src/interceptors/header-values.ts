/**
 * Response header values every transport can send. Node (and undici, behind `fetch`) refuse header
 * values outside Latin-1 and any control character; a value built from client input (a mount path
 * named in the nearest-endpoints header, a name echoed back) could otherwise kill the test process
 * through nock or answer 500 on the server, and a CR/LF could split the header block.
 *
 * See docs/decisions/transports.md ("Header values are percent-encoded").
 */

/** Characters sent as they are: printable ASCII and the space. */
const PLAIN = /^[\x20-\x7e]*$/;

/**
 * The value with every character outside printable ASCII (controls, CR/LF, tab, DEL, anything
 * beyond U+007E) replaced by the percent-escapes of its UTF-8 bytes, upper-case hex; printable ASCII
 * (including `%`) is left alone. `decodeURIComponent` reads the original back (a lone surrogate
 * becomes U+FFFD).
 * @param value - a header value as a service built it.
 * @returns a value made of printable ASCII only.
 * @example encodeHeaderValue("GET /v1/x💥/roles") // "GET /v1/x%F0%9F%92%A5/roles"
 */
export function encodeHeaderValue(value: string): string {
  if (PLAIN.test(value)) return value;
  let out = "";
  for (const char of value) {
    const code = char.codePointAt(0) ?? 0;
    if (code >= 0x20 && code <= 0x7e) {
      out += char;
      continue;
    }
    for (const byte of Buffer.from(char, "utf8")) out += `%${byte.toString(16).toUpperCase().padStart(2, "0")}`;
  }
  return out;
}

/**
 * Longest header value sent, in characters after encoding. Clients refuse long header blocks
 * (undici: 16 KiB in all), so no value built from client input (a long path) may grow past this;
 * a longer value is cut and ends with `...`.
 */
export const MAX_HEADER_VALUE_LENGTH = 4096;

/** Whether `name` is an HTTP token (RFC 9110 section 5.6.2), as a header name must be. */
const TOKEN = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;

/**
 * Whether {@link encodeHeaderValues} would give back `headers` unchanged: every name an HTTP token,
 * every value a printable ASCII string of at most {@link MAX_HEADER_VALUE_LENGTH} characters (what
 * the services answer nearly always, so the handler copies nothing then).
 * @example headerValuesPrintable({ "content-type": "application/json" }) // true
 */
export function headerValuesPrintable(headers: Readonly<Record<string, string>>): boolean {
  for (const name in headers) {
    if (!Object.hasOwn(headers, name)) return false;
    const value: unknown = headers[name];
    if (typeof value !== "string" || value.length > MAX_HEADER_VALUE_LENGTH || !TOKEN.test(name) || !PLAIN.test(value)) return false;
  }
  return true;
}

/**
 * The headers with every value passed through {@link encodeHeaderValue} and cut to
 * {@link MAX_HEADER_VALUE_LENGTH} characters. A name that is not an HTTP
 * token (only code names headers; none takes a name from the client) is dropped rather than sent.
 * @example encodeHeaderValues({ "x-infra-doubles-nearest": "GET /v1/é" }) // { "x-infra-doubles-nearest": "GET /v1/%C3%A9" }
 */
export function encodeHeaderValues(headers: Readonly<Record<string, string>>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) {
    if (!TOKEN.test(name)) continue;
    const encoded = encodeHeaderValue(String(value));
    out[name] = encoded.length > MAX_HEADER_VALUE_LENGTH ? `${encoded.slice(0, MAX_HEADER_VALUE_LENGTH - 3)}...` : encoded;
  }
  return out;
}

/**
 * Request headers whose repeated lines node:http's server reads as the first line alone (its
 * `IncomingMessage.headers` drops the later ones); the services read these names once, as Go's
 * `Header.Get` does. Every other repeated name is joined with `, ` (`Cookie` with `; `).
 */
export const FIRST_LINE_WINS: ReadonlySet<string> = new Set([
  "content-type", "content-length", "user-agent", "referer", "host", "authorization", "proxy-authorization",
  "if-modified-since", "if-unmodified-since", "from", "location", "max-forwards", "retry-after", "etag",
  "last-modified", "server", "age", "expires",
]);

/**
 * The services' token headers (`X-Secrets-Token` and `X-Vault-Token`, `X-Acl-Token` and
 * `X-Consul-Token`): the real services read them with Go's `Header.Get`, which returns the FIRST
 * line's value, so of repeated lines only the first is kept (node:http would join them with `, `).
 * fetch sends repeated values as one joined line, which Go reads whole: that one line stays as it is.
 * See docs/decisions/security.md ("Repeated token headers").
 */
export const FIRST_VALUE_TOKEN_HEADERS: ReadonlySet<string> = new Set(["x-secrets-token", "x-vault-token", "x-acl-token", "x-consul-token"]);

/**
 * Request header lines (flat `[name, value, name, value, ...]`, as node:http's `rawHeaders` and its
 * parser give them) with repeated lines folded as the local server's node:http folds them: a later
 * line of a {@link FIRST_LINE_WINS} name is dropped (and of a {@link FIRST_VALUE_TOKEN_HEADERS} name,
 * as the real services read those), `Cookie` lines become one joined with `; `;
 * other lines stay (a `Headers` object joins them with `, `). Names keep their case.
 * The in-process transports fold what a node:http client sent with it (`owned-origins.ts`), so a
 * repeated `Authorization` means the same through nock, @mswjs/interceptors and the server.
 * @example foldRequestHeaderLines(["Authorization", "Bearer a", "authorization", "Bearer b"]) // ["Authorization", "Bearer a"]
 */
export function foldRequestHeaderLines(raw: readonly string[]): string[] {
  const out: string[] = [];
  const seen = new Set<string>();
  let cookieAt = -1;
  for (let i = 0; i + 1 < raw.length; i += 2) {
    const name = raw[i] ?? "";
    const value = raw[i + 1] ?? "";
    const lower = name.toLowerCase();
    if (lower === "cookie") {
      if (cookieAt >= 0) out[cookieAt] = `${out[cookieAt] ?? ""}; ${value}`;
      else {
        cookieAt = out.length + 1;
        out.push(name, value);
      }
      continue;
    }
    if (FIRST_LINE_WINS.has(lower) || FIRST_VALUE_TOKEN_HEADERS.has(lower)) {
      if (seen.has(lower)) continue;
      seen.add(lower);
    }
    out.push(name, value);
  }
  return out;
}

/**
 * Request headers as the services read them: lower-case names, repeated lines folded by
 * {@link foldRequestHeaderLines}, then joined with `, ` (what node:http's `IncomingMessage.headers`
 * gives, `Set-Cookie` aside, but the first line of a token header).
 * @example requestHeaders(["X-A", "1", "x-a", "2", "Authorization", "a", "authorization", "b"]) // { "x-a": "1, 2", authorization: "a" }
 */
export function requestHeaders(raw: readonly string[]): Record<string, string> {
  const folded = foldRequestHeaderLines(raw);
  const out: Record<string, string> = {};
  for (let i = 0; i + 1 < folded.length; i += 2) {
    const name = (folded[i] ?? "").toLowerCase();
    const value = folded[i + 1] ?? "";
    out[name] = out[name] === undefined ? value : `${out[name]}, ${value}`;
  }
  return out;
}
