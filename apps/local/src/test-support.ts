// Runs the real `npm start` entry (apps/local/src/main.ts) as a child process for tests.
import { type ChildProcess, spawn } from "node:child_process";
import { fileURLToPath } from "node:url";

export const MAIN = fileURLToPath(new URL("./main.ts", import.meta.url));
export const ADMIN_TOKEN = "test-admin-token-0123456789";
export const MONITOR_TOKEN = "test-monitor-token-0123456789";

export interface RunningStack {
  child: ChildProcess;
  url: string;
  /** Every JSON log line printed so far. */
  lines: Record<string, unknown>[];
  waitFor(
    predicate: (line: Record<string, unknown>) => boolean,
    timeoutMs?: number,
  ): Promise<Record<string, unknown>>;
  kill(signal: NodeJS.Signals): Promise<void>;
}

export async function spawnStack(env: Record<string, string>): Promise<RunningStack> {
  // Stdout is a pipe, so the lines are JSON (log-format.ts) unless a LOG_FORMAT of the caller's shell says otherwise.
  const { LOG_FORMAT: _, ...inherited } = process.env;
  const child = spawn(process.execPath, [MAIN], {
    env: { ...inherited, PORT: "0", ADMIN_TOKEN, MONITOR_TOKEN, DEMO: "0", ...env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  const lines: Record<string, unknown>[] = [];
  const waiters = new Set<() => void>();
  let buffer = "";
  let stderr = "";
  child.stdout?.setEncoding("utf8").on("data", (chunk: string) => {
    buffer += chunk;
    let nl = buffer.indexOf("\n");
    while (nl >= 0) {
      const line = buffer.slice(0, nl);
      buffer = buffer.slice(nl + 1);
      try {
        lines.push(JSON.parse(line) as Record<string, unknown>);
      } catch {
        lines.push({ raw: line });
      }
      nl = buffer.indexOf("\n");
    }
    for (const w of waiters) w();
  });
  child.stderr?.setEncoding("utf8").on("data", (chunk: string) => {
    stderr += chunk;
  });
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));

  const waitFor = (predicate: (line: Record<string, unknown>) => boolean, timeoutMs = 15_000) =>
    new Promise<Record<string, unknown>>((resolve, reject) => {
      const check = () => {
        const found = lines.find(predicate);
        if (found) {
          waiters.delete(check);
          clearTimeout(timer);
          resolve(found);
        }
      };
      const timer = setTimeout(() => {
        waiters.delete(check);
        reject(new Error(`timed out waiting for a log line; stderr: ${stderr.slice(-500)}`));
      }, timeoutMs);
      waiters.add(check);
      check();
    });

  const listening = await waitFor((l) => l.message === "listening");
  return {
    child,
    url: listening.url as string,
    lines,
    waitFor,
    async kill(signal) {
      child.kill(signal);
      await exited;
    },
  };
}

export async function call(
  url: string,
  method: string,
  path: string,
  body?: unknown,
  headers: Record<string, string> = {},
  // biome-ignore lint/suspicious/noExplicitAny: response bodies are checked field by field in tests.
): Promise<{ status: number; body: any }> {
  const res = await fetch(url + path, {
    method,
    headers: { "content-type": "application/json", ...headers },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  return { status: res.status, body: text === "" ? null : JSON.parse(text) };
}
