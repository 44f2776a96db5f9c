/**
 * The human format of `npm start`'s log lines (LOG_FORMAT, log-format.ts): time, level, component,
 * message and key=value fields on one line, warnings and errors marked so they stand out, and the
 * routine lines that flood a start (every exported setting, every simulated collector run) left
 * out and counted instead. Pure: the JSON format keeps every line for whoever needs them.
 */

export type Level = "info" | "warn" | "error";

export interface LogEntry {
  time: Date;
  level: Level;
  component: string;
  message: string;
  fields: Readonly<Record<string, unknown>>;
}

/** A line's entry: the stack's parts log through one logger and name themselves in a `component` field. */
export function logEntry(
  time: Date,
  level: Level,
  component: string,
  message: string,
  fields: Readonly<Record<string, unknown>> = {},
): LogEntry {
  const named = typeof fields.component === "string" ? fields.component : component;
  return { time, level, component: named, message, fields };
}

const ESC = "\u001b[";
export const paint = {
  dim: (s: string) => `${ESC}2m${s}${ESC}0m`,
  bold: (s: string) => `${ESC}1m${s}${ESC}0m`,
  yellow: (s: string) => `${ESC}1;33m${s}${ESC}0m`,
  red: (s: string) => `${ESC}1;31m${s}${ESC}0m`,
  cyan: (s: string) => `${ESC}36m${s}${ESC}0m`,
};

// Control characters (C0, DEL, C1) in a logged value could move the cursor or rewrite the screen
// of whoever reads the terminal: a request path, an error text or a name can come from a client.
const CONTROLS = /[\u0000-\u001f\u007f-\u009f]/g;
const escapeControls = (s: string): string =>
  s.replace(CONTROLS, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`);

/** A field value as it reads best: bare when unambiguous, JSON (quoted) otherwise. */
export function formatValue(value: unknown): string {
  if (typeof value === "string") {
    return /^[^\s"'=\\\u0000-\u001f\u007f-\u009f]+$/.test(value)
      ? value
      : escapeControls(JSON.stringify(value));
  }
  if (value === undefined) return "undefined";
  return escapeControls(JSON.stringify(value) ?? String(value));
}

const two = (n: number) => String(n).padStart(2, "0");
/** Local wall-clock time: a person reads it against their own clock (the JSON lines keep UTC). */
const clock = (t: Date) => `${two(t.getHours())}:${two(t.getMinutes())}:${two(t.getSeconds())}`;

const LABEL: Record<Level, string> = { info: "info ", warn: "WARN ", error: "ERROR" };

export function formatHumanLine(entry: LogEntry, color: boolean): string {
  const fields = Object.entries(entry.fields)
    .filter(([key]) => key !== "component")
    .map(([key, value]) => `${escapeControls(key)}=${formatValue(value)}`)
    .join(" ");
  const message = escapeControls(entry.message);
  const component = escapeControls(entry.component).padEnd(7);
  const level = LABEL[entry.level];
  const parts = color
    ? [
        paint.dim(clock(entry.time)),
        entry.level === "error" ? paint.red(level) : entry.level === "warn" ? paint.yellow(level) : level,
        paint.cyan(component),
        entry.level === "info" ? message : paint.bold(message),
      ]
    : [clock(entry.time), level, component, message];
  return `${parts.join(" ")}${fields === "" ? "" : ` ${color ? paint.dim(fields) : fields}`}`;
}

/**
 * Info lines that repeat during every start and in steady state, by the words a person would
 * count them in; null for a line worth printing. The banner shows what the startup lines carried
 * (URL, tokens, demo key and curl), so those count as routine too.
 */
export function routineKind(entry: LogEntry): string | null {
  if (entry.level !== "info") return null;
  const m = entry.message;
  switch (entry.component) {
    case "monitor":
      if (m === "run started") return "collector runs started";
      if (m.startsWith("run succeeded")) return "collector runs succeeded";
      return null;
    case "cost":
      return m === "cost report ingested" ? "cost reports ingested" : null;
    case "local":
      if (m === "settings exported") return "settings exported";
      if (m === "account created" || m === "relevance trigger config set") return "settings written";
      if (
        m === "listening" ||
        m === "demo data ready" ||
        m.startsWith("demo search ready") ||
        m.startsWith("generated MONITOR_TOKEN") ||
        m.startsWith("generated ADMIN_TOKEN")
      )
        return "shown in the banner";
      return null;
    default:
      return null;
  }
}

/** One line: what was left out, so a person knows it happened and where to see it. */
export function summarizeHidden(counts: ReadonlyMap<string, number>): string | null {
  const parts = [...counts].filter(([kind]) => kind !== "shown in the banner").map(([k, n]) => `${n} ${k}`);
  return parts.length === 0 ? null : `${parts.join(", ")} (routine lines: LOG_FORMAT=json prints each)`;
}
