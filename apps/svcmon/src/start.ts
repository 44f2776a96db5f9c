/**
 * `svcmon run` records its run's start before the command runs (POST /api/system/runs/start, or into
 * the chDB folder with --data-dir, as the final record goes), under the run_id of its final record:
 * until that record arrives the monitor shows the run running, then hung past its max duration. A
 * start that cannot be recorded is one line on stderr; it never stops or delays the command long
 * (one attempt, 5 s at most over HTTP). docs/monitor-runtime.md (`svcmon run`).
 */
import { chdbFolderFor, type DeliverDeps, findLiveStack, type Target, withFolderLock } from "./deliver.ts";

export interface RunStartOut {
  run_id: string;
  collector: string;
  cloud_account_id: string;
  cloud_region: string;
  started_at: number;
}

export interface StartDeps extends Pick<DeliverDeps, "fetch" | "sleep" | "alive" | "say"> {
  /** Writes the start straight into the chDB folder (only when no live stack holds it). */
  storeStartDirect: (dir: string, start: RunStartOut) => Promise<void>;
}

/** The longest a start's POST may take before the command runs anyway. */
export const START_TIMEOUT_MS = 5000;

async function postStart(
  url: string,
  token: string,
  start: RunStartOut,
  deps: StartDeps,
): Promise<string | null> {
  try {
    const res = await deps.fetch(`${url}/api/system/runs/start`, {
      method: "POST",
      headers: { "content-type": "application/json", authorization: `Bearer ${token}` },
      body: JSON.stringify({ ...start, started_at: new Date(start.started_at).toISOString() }),
      // A redirect would carry the token elsewhere: it is an error, not followed.
      redirect: "manual",
      signal: AbortSignal.timeout(START_TIMEOUT_MS),
    });
    if (res.ok) {
      await res.body?.cancel().catch(() => undefined);
      return null;
    }
    const text =
      res.status >= 300 && res.status <= 399 ? "a redirect, not followed" : (await res.text()).slice(0, 300);
    return `POST ${url}/api/system/runs/start failed: HTTP ${res.status}${text ? `: ${text}` : ""}`;
  } catch (err) {
    return `POST ${url}/api/system/runs/start failed: ${(err as Error).message}`;
  }
}

/** Records the start; resolves to null when recorded, else why not. Never throws. */
export async function sendStart(
  target: Target,
  start: RunStartOut,
  env: Readonly<Record<string, string | undefined>>,
  deps: StartDeps,
): Promise<string | null> {
  try {
    if (target.kind === "api") return await postStart(target.url, target.token, start, deps);
    const live = findLiveStack(target.dir, deps.alive);
    if (live !== undefined) {
      const token = env.MONITOR_TOKEN || (live.tokenUsable ? live.stack.token : undefined);
      if (!token)
        return `${target.dir} is held by the running stack (pid ${live.stack.pid}) and no usable token is known`;
      return await postStart(live.stack.url, token, start, deps);
    }
    const folder = chdbFolderFor(target.dir);
    await withFolderLock(folder.dir, { ...deps, storeDirect: async () => undefined }, () =>
      deps.storeStartDirect(folder.dir, start),
    );
    return null;
  } catch (err) {
    return (err as Error).message;
  }
}
