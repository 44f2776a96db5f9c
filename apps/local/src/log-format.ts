/**
 * How `npm start` prints: JSON lines for machines (a pipe, a file, a log shipper: unchanged from
 * before the human format existed), a banner and short readable lines for a person at a terminal.
 * Pure: the environment and whether stdout is a terminal go in, the choice comes out.
 */

export type LogFormat = "json" | "human";

export interface LogOutput {
  format: LogFormat;
  /** ANSI colours: only for the human format on a terminal, and never when NO_COLOR is set (no-color.org). */
  color: boolean;
}

export type LogOutputChoice = { ok: true; output: LogOutput } | { ok: false; error: string };

export function chooseLogOutput(
  env: Readonly<Record<string, string | undefined>>,
  stdoutIsTTY: boolean,
): LogOutputChoice {
  const raw = env.LOG_FORMAT?.trim() ?? "";
  let format: LogFormat;
  if (raw === "") format = stdoutIsTTY ? "human" : "json";
  else if (raw === "json" || raw === "human") format = raw;
  else return { ok: false, error: `LOG_FORMAT must be json or human, got "${raw}"` };
  const noColor = (env.NO_COLOR ?? "") !== "";
  return { ok: true, output: { format, color: format === "human" && stdoutIsTTY && !noColor } };
}
