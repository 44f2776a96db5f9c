/** The HTTP POST shared by the webhook and Slack adapters. */

export type FetchLike = (input: string, init: RequestInit) => Promise<Response>;

export const DEFAULT_HTTP_TIMEOUT_MS = 10_000;

/**
 * POSTs a JSON body; resolves on 2xx, throws otherwise (non-2xx, network error, timeout, abort).
 * Error messages name the channel, never the URL: a Slack webhook URL is a secret.
 */
export async function postJson(
  channel: string,
  url: string,
  body: unknown,
  options: { headers?: Record<string, string>; timeoutMs: number; signal: AbortSignal; fetch?: FetchLike },
): Promise<void> {
  const doFetch = options.fetch ?? fetch;
  const signal = AbortSignal.any([options.signal, AbortSignal.timeout(options.timeoutMs)]);
  let res: Response;
  try {
    res = await doFetch(url, {
      method: "POST",
      headers: { ...options.headers, "content-type": "application/json" },
      body: JSON.stringify(body),
      signal,
    });
  } catch (err) {
    if (signal.aborted && !options.signal.aborted) {
      throw new Error(`${channel}: timed out after ${options.timeoutMs} ms`);
    }
    throw new Error(`${channel}: ${errorMessage(err)}`);
  }
  if (res.status < 200 || res.status > 299) {
    let snippet = "";
    try {
      snippet = (await res.text()).slice(0, 200);
    } catch {
      // the body is only for the message
    }
    throw new Error(`${channel}: HTTP ${res.status}${snippet === "" ? "" : `: ${snippet}`}`);
  }
  // Drain the body so the connection can be reused.
  await res.arrayBuffer().catch(() => undefined);
}

export function errorMessage(err: unknown): string {
  if (err instanceof Error) {
    const cause = (err as { cause?: unknown }).cause;
    return cause instanceof Error ? `${err.message} (${cause.message})` : err.message;
  }
  return String(err);
}
