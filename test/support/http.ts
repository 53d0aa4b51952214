/**
 * A request through `fetch` that keeps everything a client sees, for tests that compare answers
 * byte for byte across doubles (a faithful fake against a mutant, coverage on against off).
 */

/** What a client saw: the status, the headers but the date and connection ones, the body text. */
export interface Answer {
  readonly status: number;
  readonly headers: [string, string][];
  readonly text: string;
}

/**
 * Sends a request (a body that is not a string or bytes is sent as JSON, with its content type)
 * and keeps everything a client sees but the headers that vary between runs (date, connection).
 * @example const answer = await send(`${base}/runs/${id}`, { headers: { authorization } });
 */
export async function send(url: string, init: { method?: string; headers?: Record<string, string>; body?: unknown } = {}): Promise<Answer> {
  const response = await fetch(url, {
    method: init.method ?? "GET",
    headers: { ...(init.body === undefined ? {} : { "content-type": "application/json" }), ...init.headers },
    ...(init.body === undefined ? {} : { body: typeof init.body === "string" || init.body instanceof Uint8Array ? (init.body as string | Uint8Array<ArrayBuffer>) : JSON.stringify(init.body) }),
  });
  const headers: [string, string][] = [];
  response.headers.forEach((value, name) => {
    if (name !== "date" && name !== "connection" && name !== "keep-alive") headers.push([name, value]);
  });
  return { status: response.status, headers, text: await response.text() };
}
