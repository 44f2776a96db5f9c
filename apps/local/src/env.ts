import { randomBytes } from "node:crypto";
import { resolve } from "node:path";

export interface LocalConfig {
  port: number;
  host: string;
  dataDir: string;
  adminToken: string;
  /** Whether ADMIN_TOKEN was generated for this run (and must be printed). */
  adminTokenGenerated: boolean;
  demo: boolean;
  /** Run the settings exporter in this process (EXPORTER=0 leaves the change log unexported). */
  exporter: boolean;
  /** Bearer token of the monitor's /api/system/* routes. */
  monitorToken: string;
  monitorTokenGenerated: boolean;
}

export type ConfigResult = { ok: true; config: LocalConfig } | { ok: false; error: string };

/** Reads the local stack's environment; a bad value is one clear line naming the variable. */
export function readConfig(env: NodeJS.ProcessEnv): ConfigResult {
  const rawPort = env.PORT ?? "8787";
  const port = Number(rawPort);
  if (!/^\d+$/.test(rawPort) || port > 65535)
    return { ok: false, error: `PORT must be a port number (0-65535), got "${rawPort}"` };
  const flag = (name: string, fallback: boolean): boolean | string => {
    const value = env[name];
    if (value === undefined || value === "") return fallback;
    if (value === "1" || value === "true") return true;
    if (value === "0" || value === "false") return false;
    return `${name} must be 0 or 1, got "${value}"`;
  };
  const demo = flag("DEMO", true);
  if (typeof demo === "string") return { ok: false, error: demo };
  const exporter = flag("EXPORTER", true);
  if (typeof exporter === "string") return { ok: false, error: exporter };
  const token = env.ADMIN_TOKEN === "" ? undefined : env.ADMIN_TOKEN;
  if (token !== undefined && token.length < 16)
    return { ok: false, error: "ADMIN_TOKEN must be at least 16 characters" };
  const monitorToken = env.MONITOR_TOKEN === "" ? undefined : env.MONITOR_TOKEN;
  if (monitorToken !== undefined && monitorToken.length < 16) {
    return { ok: false, error: "MONITOR_TOKEN must be at least 16 characters" };
  }
  return {
    ok: true,
    config: {
      port,
      host: env.HOST ?? "127.0.0.1",
      dataDir: resolve(env.DATA_DIR ?? "./.data"),
      adminToken: token ?? randomBytes(24).toString("base64url"),
      adminTokenGenerated: token === undefined,
      demo,
      exporter,
      monitorToken: monitorToken ?? randomBytes(24).toString("base64url"),
      monitorTokenGenerated: monitorToken === undefined,
    },
  };
}

/** readConfig for programs that embed the stack (tests, benchmarks): a bad value throws. */
export function configFrom(env: NodeJS.ProcessEnv): LocalConfig {
  const parsed = readConfig(env);
  if (!parsed.ok) throw new Error(parsed.error);
  return parsed.config;
}
