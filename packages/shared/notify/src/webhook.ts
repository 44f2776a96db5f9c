import { DEFAULT_HTTP_TIMEOUT_MS, type FetchLike, postJson } from "./http.ts";
import type { Channel, Notification } from "./ports.ts";

export interface WebhookChannelOptions {
  name?: string;
  url: string;
  /** Extra request headers, e.g. an `authorization` header the receiver checks. */
  headers?: Record<string, string>;
  /** Per attempt; default 10 s. */
  timeoutMs?: number;
  fetch?: FetchLike;
  /** Allow a link-local or cloud metadata address as the target (docs/notifications.md). Default false. */
  allowPrivateTargets?: boolean;
}

/**
 * Generic webhook: POSTs the notification itself as JSON, with an `idempotency-key` header carrying
 * the notification id. Any non-2xx answer is a failure, a redirect too (it is not followed).
 */
export function webhookChannel(options: WebhookChannelOptions): Channel {
  const name = options.name ?? "webhook";
  const timeoutMs = options.timeoutMs ?? DEFAULT_HTTP_TIMEOUT_MS;
  return {
    name,
    async send(notification: Notification, signal: AbortSignal): Promise<void> {
      await postJson(name, options.url, notification, {
        headers: { ...options.headers, "idempotency-key": notification.id },
        timeoutMs,
        signal,
        ...(options.fetch ? { fetch: options.fetch } : {}),
        ...(options.allowPrivateTargets ? { allowPrivateTargets: true } : {}),
      });
    },
  };
}
