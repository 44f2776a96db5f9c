/** The HTTP POST shared by the webhook and Slack adapters. */
import { errorMessage } from "@shared/kernel";
import { MAX_RESPONSE_SNIPPET_CHARS, responseSnippet, urlTargetProblem } from "./targets.ts";

export type FetchLike = (input: string, init: RequestInit) => Promise<Response>;

export const DEFAULT_HTTP_TIMEOUT_MS = 10_000;

/**
 * POSTs a JSON body; resolves on 2xx, throws otherwise (non-2xx, a redirect, network error, timeout,
 * abort, a refused target). Error messages name the channel, never the URL: a Slack webhook URL is a
 * secret.
 *
 * Redirects are never followed (`redirect: "manual"`): a 3xx is a failed delivery, so a target cannot
 * send the notification, with its headers, on to another address (such as a cloud metadata service).
 * The target is checked again here, not only in the config, since a channel may be built without
 * it. Only the first 200 characters of an error answer are read and kept.
 */
export async function postJson(
  channel: string,
  url: string,
  body: unknown,
  options: {
    headers?: Record<string, string>;
    timeoutMs: number;
    signal: AbortSignal;
    fetch?: FetchLike;
    /** Allow link-local and cloud metadata targets (the channel's `allowPrivateTargets`). */
    allowPrivateTargets?: boolean;
  },
): Promise<void> {
  const refused = urlTargetProblem(url, options.allowPrivateTargets ?? false);
  if (refused !== undefined) throw new Error(`${channel}: target refused: the URL ${refused}`);
  const doFetch = options.fetch ?? fetch;
  const signal = AbortSignal.any([options.signal, AbortSignal.timeout(options.timeoutMs)]);
  let res: Response;
  try {
    res = await doFetch(url, {
      method: "POST",
      headers: { ...options.headers, "content-type": "application/json" },
      body: JSON.stringify(body),
      redirect: "manual",
      signal,
    });
  } catch (err) {
    if (signal.aborted && !options.signal.aborted) {
      throw new Error(`${channel}: timed out after ${options.timeoutMs} ms`);
    }
    throw new Error(`${channel}: ${errorMessage(err)}`);
  }
  // Browsers and Workers hide a manual redirect behind an "opaqueredirect" response with status 0.
  if (res.type === "opaqueredirect" || (res.status >= 300 && res.status <= 399)) {
    await res.body?.cancel().catch(() => undefined);
    const status = res.status === 0 ? "a redirect" : `HTTP ${res.status}`;
    throw new Error(`${channel}: ${status}: the target answered with a redirect, which is not followed`);
  }
  if (res.status < 200 || res.status > 299) {
    const snippet = await responseSnippet(res, MAX_RESPONSE_SNIPPET_CHARS);
    throw new Error(`${channel}: HTTP ${res.status}${snippet === "" ? "" : `: ${snippet}`}`);
  }
  // The answer to an accepted notification is not needed; cancelled, not read, however long it is.
  await res.body?.cancel().catch(() => undefined);
}

// One line from anything thrown, with its cause: the kernel's.
export { errorMessage };
