// The text of `relevance --help` and `relevance <command> --help`. Pure: relevance.ts passes the
// commands in, so a test can render every page without running anything.
import { type FlagSpec, flagHelp } from "./args.ts";

export interface CommandHelp {
  summary: string;
  usage: string;
  /** Complete command lines; at least one (people copy an example before they read the flags). */
  examples: string[];
  flags: FlagSpec;
}

/** One command's page: what it does, its usage line, every flag, and examples to copy. */
export function commandHelp(name: string, c: CommandHelp): string {
  return [
    `relevance ${name}: ${c.summary}`,
    "",
    `Usage: ${c.usage}`,
    "",
    "Flags:",
    flagHelp(c.flags),
    `${"  -h, --help".padEnd(28)}show this help`,
    "",
    "Examples:",
    ...c.examples.map((e) => `  ${e}`),
    "",
    "Exit codes: 0 success, 1 bad input or a failed step, 2 bad usage, 70 internal error (docs/cli.md).",
    "",
  ].join("\n");
}

/** The overview: every command with its one-line summary, then where to read more. */
export function mainHelp(commands: Record<string, CommandHelp>): string {
  const width = Math.max(...Object.keys(commands).map((n) => n.length)) + 2;
  return [
    "relevance: tools for the search relevance score",
    "",
    "Usage: relevance <command> [flags]",
    "",
    "Commands:",
    ...Object.entries(commands).map(([name, c]) => `  ${name.padEnd(width)}${c.summary}`),
    "",
    "Operating procedures (model upload|get|delete, config, verify, rollout, rollback, prune) take",
    "--env local|dev|staging|preprod|prod (environments from relevance.environments.json, or --config F /",
    "$RELEVANCE_ENVIRONMENTS; credentials from CLOUDFLARE_API_TOKEN, CLOUDFLARE_ACCOUNT_ID, the AWS default",
    "chain and ADMIN_TOKEN; local is the npm start stack at DATA_DIR and PORT) and --json. See docs/operations.md.",
    "",
    "Examples:",
    "  relevance model export --help",
    "  relevance model inspect --model model-products.json",
    "  relevance config get --env local --account acct_3f9c2a7b10de --index products",
    "",
    "Run `relevance <command> --help` for a command's flags and examples. Exit codes: 0 success, 1 bad",
    "input or a failed step, 2 bad usage, 70 internal error (docs/cli.md).",
    "",
  ].join("\n");
}
