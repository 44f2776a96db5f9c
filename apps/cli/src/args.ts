import { parseArgs } from "node:util";
import { UserError } from "./io.ts";

export type FlagSpec = Record<string, { type: "string" | "boolean"; required?: boolean; help: string }>;

export const USAGE_EXIT = 2;

/** Parses `--flag value` options strictly; unknown or missing flags are usage errors (exit 2). */
export function parseFlags(
  command: string,
  spec: FlagSpec,
  argv: string[],
): Record<string, string | boolean | undefined> {
  let values: Record<string, string | boolean | undefined>;
  try {
    const parsed = parseArgs({
      args: argv,
      options: Object.fromEntries(Object.entries(spec).map(([name, s]) => [name, { type: s.type }])),
      strict: true,
      allowPositionals: false,
    });
    values = parsed.values as Record<string, string | boolean | undefined>;
  } catch (error) {
    throw new UserError(
      `${(error as Error).message.split("\n")[0]} (see relevance ${command} --help)`,
      USAGE_EXIT,
    );
  }
  for (const [name, s] of Object.entries(spec)) {
    if (s.required && values[name] === undefined) {
      throw new UserError(`--${name} is required (see relevance ${command} --help)`, USAGE_EXIT);
    }
  }
  return values;
}

export function flagHelp(spec: FlagSpec): string {
  return Object.entries(spec)
    .map(
      ([name, s]) =>
        `  --${name}${s.type === "string" ? " <value>" : ""}`.padEnd(28) +
        s.help +
        (s.required ? " (required)" : ""),
    )
    .join("\n");
}

/** `null` on the command line means JSON null (a field name or null). */
export const nullable = (value: string): string | null => (value === "null" ? null : value);
