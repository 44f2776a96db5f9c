// `npm start`'s stack as a child process for the benchmarks that load it over loopback HTTP, and
// its resident memory read from /proc.
import { type ChildProcess, spawn } from "node:child_process";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

const ROOT = fileURLToPath(new URL("../../", import.meta.url));

/** Starts apps/local/src/main.ts on a free port with DEMO=0; resolves once it is listening. */
export async function startLocalStack(
  dataDir: string,
  env: Record<string, string>,
): Promise<{ child: ChildProcess; url: string }> {
  const child = spawn(
    process.execPath,
    ["--disable-warning=ExperimentalWarning", join(ROOT, "apps/local/src/main.ts")],
    {
      env: { ...process.env, PORT: "0", DATA_DIR: dataDir, DEMO: "0", ...env },
      stdio: ["ignore", "pipe", "inherit"],
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
