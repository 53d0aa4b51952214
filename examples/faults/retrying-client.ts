/**
 * Example client code, written as an application would write it (global `fetch`, nothing from
 * infra-doubles):
 * - `fetchWithRetries`: retries a request answered 429 (waiting what `Retry-After` says) or 5xx,
 *   and, for requests marked idempotent, one whose connection failed;
 * - `waitForUnsealed`: polls the secrets service's `sys/health` until the node serves again;
 * - `createServiceToken`: creates an access-control token so that a retry after a dropped
 *   connection cannot create a second one (the client picks the AccessorID, and a retry that finds
 *   it taken reads the token the first attempt made).
 */

/** Options of {@link fetchWithRetries}. */
export interface RetryOptions {
  /** Retries after the first attempt (default 3). */
  readonly retries?: number;
  /** How the client waits, ms (tests pass one that moves the fake's clock). */
  readonly sleep: (ms: number) => Promise<void>;
  /** Wait before a retry without `Retry-After`, ms (default 500, doubled each time). */
  readonly backoffMs?: number;
  /** Whether a failed connection may be retried (only for requests safe to repeat). */
  readonly idempotent?: boolean;
}

/**
 * `fetch` with retries on 429 (honouring `Retry-After` in seconds), 5xx and, when `idempotent`,
 * network errors.
 * @returns the first answer that is neither 429 nor 5xx, or the last one.
 * @throws the last network error when every attempt failed to connect.
 */
export async function fetchWithRetries(url: string, init: RequestInit, options: RetryOptions): Promise<Response> {
  const retries = options.retries ?? 3;
  let backoff = options.backoffMs ?? 500;
  for (let attempt = 0; ; attempt++) {
    let response: Response;
    try {
      response = await fetch(url, init);
    } catch (error) {
      if (!options.idempotent || attempt >= retries) throw error;
      await options.sleep(backoff);
      backoff *= 2;
      continue;
    }
    const retryable = response.status === 429 || response.status >= 500;
    if (!retryable || attempt >= retries) return response;
    const retryAfter = Number(response.headers.get("retry-after"));
    await response.arrayBuffer(); // let the connection go back to the pool
    await options.sleep(Number.isFinite(retryAfter) && retryAfter > 0 ? retryAfter * 1000 : backoff);
    if (!(retryAfter > 0)) backoff *= 2;
  }
}

/**
 * Polls `GET <base>/sys/health` every `everyMs` until the node answers 200 (unsealed, active).
 * @returns how many polls it took.
 * @throws when the node is still not serving after `timeoutMs`.
 */
export async function waitForUnsealed(baseUrl: string, options: { sleep: (ms: number) => Promise<void>; everyMs?: number; timeoutMs?: number }): Promise<number> {
  const every = options.everyMs ?? 5000;
  const timeout = options.timeoutMs ?? 120_000;
  for (let waited = 0, polls = 1; ; polls++) {
    const response = await fetch(`${baseUrl}/sys/health`);
    await response.arrayBuffer();
    if (response.status === 200) return polls;
    if (waited >= timeout) throw new Error(`the secrets node still answers ${response.status} after ${timeout} ms`);
    await options.sleep(every);
    waited += every;
  }
}

/** A created token. */
export interface CreatedToken {
  readonly AccessorID: string;
  readonly SecretID: string;
}

/**
 * Creates a token for `serviceName`, retrying once after a failed connection.
 * - `safe: false`: a blind retry (a dropped connection after the server committed makes a
 *   second token);
 * - `safe: true`: the client sends its own AccessorID; a retry answered "already in use" means
 *   the first attempt committed, and the token is read back instead.
 */
export async function createServiceToken(
  baseUrl: string,
  managementToken: string,
  serviceName: string,
  options: { safe: boolean; accessorId?: string },
): Promise<CreatedToken> {
  const headers = { "x-consul-token": managementToken, "content-type": "application/json" };
  const body = JSON.stringify({
    Description: `token for ${serviceName}`,
    ServiceIdentities: [{ ServiceName: serviceName }],
    ...(options.safe ? { AccessorID: options.accessorId } : {}),
  });
  for (let attempt = 0; attempt < 2; attempt++) {
    let response: Response;
    try {
      response = await fetch(`${baseUrl}/acl/token`, { method: "PUT", headers, body });
    } catch (error) {
      if (attempt === 0) continue; // the connection dropped: try again
      throw error;
    }
    const text = await response.text();
    if (response.ok) return JSON.parse(text) as CreatedToken;
    if (options.safe && attempt > 0 && /AccessorID is already in use/.test(text)) {
      const existing = await fetch(`${baseUrl}/acl/token/${options.accessorId}`, { headers });
      return (await existing.json()) as CreatedToken;
    }
    throw new Error(`create token: ${response.status} ${text}`);
  }
  throw new Error("create token: no answer");
}
