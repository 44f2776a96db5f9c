/**
 * One call of `svcmon silence` or `svcmon maintenance` to the monitor API (a collection such as
 * `/api/system/silences`): add (POST), list (GET, `?all=true`), or end one (DELETE). No redirect is
 * followed and each call is abandoned after 10 s; a refusal is one line with the API's message and
 * the fields it names.
 */

/** What the silence and maintenance commands read and write. */
export interface ApiIo {
  fetch: typeof fetch;
  out: (text: string) => void;
  err: (text: string) => void;
  now: () => number;
}

export const API_CALL_TIMEOUT_MS = 10_000;

export type ApiCall =
  | { kind: "add"; body: unknown }
  | { kind: "list"; all: boolean }
  | { kind: "end"; id: string };

/** The answer's text when it is a 2xx; otherwise null, after one line on stderr naming `command`. */
export async function callCollection(
  io: ApiIo,
  command: string,
  target: { url: string; token: string; path: string },
  call: ApiCall,
): Promise<string | null> {
  const base = `${target.url}${target.path}`;
  const init = {
    redirect: "manual" as const,
    signal: AbortSignal.timeout(API_CALL_TIMEOUT_MS),
    headers: { authorization: `Bearer ${target.token}` } as Record<string, string>,
  };
  let res: Response;
  try {
    res =
      call.kind === "add"
        ? await io.fetch(base, {
            ...init,
            method: "POST",
            headers: { ...init.headers, "content-type": "application/json" },
            body: JSON.stringify(call.body),
          })
        : call.kind === "list"
          ? await io.fetch(call.all ? `${base}?all=true` : base, init)
          : await io.fetch(`${base}/${encodeURIComponent(call.id)}`, { ...init, method: "DELETE" });
  } catch (err) {
    io.err(`svcmon ${command}: the monitor at ${target.url} cannot be reached: ${(err as Error).message}\n`);
    return null;
  }
  const text = await res.text();
  if (res.ok) return text;
  io.err(`svcmon ${command}: ${res.status} ${refusal(text)}\n`);
  return null;
}

/** The API's error body as one line: its message and every field it names; the raw text otherwise. */
function refusal(text: string): string {
  try {
    const e = (
      JSON.parse(text) as { error?: { message?: string; details?: { path: string; message: string }[] } }
    ).error;
    if (!e?.message) return text;
    const details = (e.details ?? []).map((d) => `${d.path || "body"}: ${d.message}`).join("; ");
    return details === "" ? e.message : `${e.message}: ${details}`;
  } catch {
    return text;
  }
}
