// `npm start`'s stack as a child process for the benchmarks that load it over loopback HTTP, and
// its resident memory read from /proc.
import { type ChildProcess, spawn } from "node:child_process";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

const ROOT = fileURLToPath(new URL("../../", import.meta.url));

/**
 * Starts apps/local/src/main.ts on a free port with DEMO=0; resolves once it is listening. With
 * `probe`, the process carries loop-probe.ts and answers `loopProbe`'s questions over IPC.
 */
export async function startLocalStack(
  dataDir: string,
  env: Record<string, string>,
  options: { probe?: boolean } = {},
): Promise<{ child: ChildProcess; url: string }> {
  const probe = options.probe === true ? ["--import", join(ROOT, "scripts/bench/loop-probe.ts")] : [];
  const child = spawn(
    process.execPath,
    ["--disable-warning=ExperimentalWarning", ...probe, join(ROOT, "apps/local/src/main.ts")],
    {
      env: { ...process.env, PORT: "0", DATA_DIR: dataDir, DEMO: "0", ...env },
      stdio: options.probe === true ? ["ignore", "pipe", "inherit", "ipc"] : ["ignore", "pipe", "inherit"],
    },
  );
  const url = await new Promise<string>((resolve, reject) => {
    let buffer = "";
    child.stdout?.setEncoding("utf8").on("data", (chunk: string) => {
      buffer += chunk;
      const match = /"message":"listening","url":"([^"]+)"/.exec(buffer);
      if (match) resolve(match[1] as string);
    });
    child.once("exit", (code) => reject(new Error(`stack exited with ${code}`)));
  });
  child.stdout?.resume();
  return { child, url };
}

/** Resident memory of `pid` in MiB. */
export function rssMiB(pid: number): number {
  const status = readFileSync(`/proc/${pid}/status`, "utf8");
  return Number(/VmRSS:\s+(\d+) kB/.exec(status)?.[1]) / 1024;
}

/** The event-loop probe of a stack started with `probe`: reset before a request, read after it. */
export interface LoopProbe {
  reset(): Promise<void>;
  /** The longest the stack's event loop was held since the last reset, in milliseconds. */
  read(): Promise<number>;
  /** The same, with the milliseconds of garbage collection inside that hold and their kinds. */
  readHold(): Promise<LoopHold>;
}

export interface LoopHold {
  maxMs: number;
  gcMs: number;
  gcKinds: string[];
}

export function loopProbe(child: ChildProcess): LoopProbe {
  let next = 0;
  const ask = (probe: "reset" | "read") =>
    new Promise<Partial<LoopHold>>((resolve, reject) => {
      const id = next++;
      const onMessage = (message: { probe?: string; id?: number } & Partial<LoopHold>) => {
        if (message?.id !== id) return;
        child.off("message", onMessage);
        resolve(message);
      };
      child.on("message", onMessage);
      if (!child.send({ probe, id })) reject(new Error("the stack's probe channel is closed"));
    });
  return {
    reset: async () => {
      await ask("reset");
    },
    read: async () => (await ask("read")).maxMs ?? Number.NaN,
    readHold: async () => {
      const hold = await ask("read");
      return { maxMs: hold.maxMs ?? Number.NaN, gcMs: hold.gcMs ?? 0, gcKinds: hold.gcKinds ?? [] };
    },
  };
}
