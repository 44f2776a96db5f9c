import type { Logger } from "@relevance/settings";
import { jsonLogger } from "@shared/kernel/json-logger";
import { type BannerInfo, renderBanner } from "./banner.ts";
import { formatHumanLine, type Level, logEntry, routineKind, summarizeHidden } from "./human-log.ts";
import type { LogOutput } from "./log-format.ts";

type Write = (text: string) => void;

/** What `npm start` prints through: loggers for its parts, and the moment it is ready. */
export interface StartupConsole {
  logger(component: string): Logger;
  /** Human format: a first line while the stack starts. JSON: nothing. */
  starting(text: string): void;
  /** Human format: the banner, then the lines held back while starting. JSON: nothing (the lines carry it all). */
  ready(info: BannerInfo): void;
}

/** Lines held back before the banner; beyond this they are only counted (a start that hangs stays bounded). */
const MAX_HELD = 20;
/** Warnings printed before the banner; later ones wait below it, so the banner stays on the first screen. */
const MAX_EARLY_WARNINGS = 10;

/** The local stack prints every log line on stdout, errors included (one stream to tail). */
export function startupConsole(
  output: LogOutput,
  write: Write = (text) => process.stdout.write(text),
  now: () => Date = () => new Date(),
): StartupConsole {
  if (output.format === "json") {
    return { logger: (component) => jsonLogger(component, write, write), starting() {}, ready() {} };
  }
  const hidden = new Map<string, number>();
  let held: string[] | null = [];
  let dropped = 0;
  let earlyWarnings = 0;
  const flushHeld = () => {
    for (const line of held ?? []) write(`${line}\n`);
    if (dropped > 0) write(`... ${dropped} more lines while starting (LOG_FORMAT=json prints each)\n`);
    held = null;
  };
  const emit = (component: string, level: Level, message: string, fields: Record<string, unknown> = {}) => {
    const entry = logEntry(now(), level, component, message, fields);
    const kind = routineKind(entry);
    if (kind !== null) {
      hidden.set(kind, (hidden.get(kind) ?? 0) + 1);
      return;
    }
    const line = formatHumanLine(entry, output.color);
    // Errors and the first warnings do not wait for the banner: they may be why it never comes. An
    // error also brings out the held lines, the context of a start that may not finish.
    if (held !== null && level === "error") flushHeld();
    const early = held !== null && level === "warn" && earlyWarnings++ < MAX_EARLY_WARNINGS;
    if (held === null || level === "error" || early) write(`${line}\n`);
    else if (held.length < MAX_HELD) held.push(line);
    else dropped++;
  };
  return {
    logger: (component) => ({
      info: (message, fields) => emit(component, "info", message, fields),
      warn: (message, fields) => emit(component, "warn", message, fields),
      error: (message, fields) => emit(component, "error", message, fields),
    }),
    starting: (text) => write(`${text}\n`),
    ready(info) {
      write(`${renderBanner(info, output.color).join("\n")}\n`);
      flushHeld();
      const summary = summarizeHidden(hidden);
      if (summary !== null) {
        const entry = logEntry(now(), "info", "local", `while starting: ${summary}`);
        write(`${formatHumanLine(entry, output.color)}\n`);
      }
    },
  };
}
