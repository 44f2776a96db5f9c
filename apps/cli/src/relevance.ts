import { flagHelp, USAGE_EXIT } from "./args.ts";
import { featuresLogCommand } from "./commands/features-log.ts";
import { exportFlags, modelExport } from "./commands/model-export.ts";
import { inspectFlags, modelInspect } from "./commands/model-inspect.ts";
import { modelPredict, predictFlags } from "./commands/model-predict.ts";
import { workerCheck, workerCheckFlags } from "./commands/worker-check.ts";
import { type Io, UserError } from "./io.ts";
import { configDisable, configEditTable, configGet, configSet } from "./procedures/config.ts";
import { modelDelete, modelGet, modelUpload } from "./procedures/model.ts";
import { COMMON_FLAGS, type Procedure, runProcedure } from "./procedures/procedure.ts";
import { prune } from "./procedures/prune.ts";
import { rollback, rollout } from "./procedures/rollout.ts";
import { verify } from "./procedures/verify.ts";

interface Command {
  summary: string;
  usage: string;
  flags: Parameters<typeof flagHelp>[0];
  run(argv: string[], io: Io): Promise<number>;
}

/** An operating procedure (spec §6) as a command: `--env`, `--json` and `--config` come with it. */
function procedure<P>(p: Procedure<P>): [string, Command] {
  return [
    p.name,
    {
      summary: p.summary,
      usage: p.usage,
      flags: { ...p.flags, ...COMMON_FLAGS },
      run: (argv, io) => runProcedure(p, argv, io),
    },
  ];
}

const PROCEDURES: [string, Command][] = [
  procedure(modelUpload),
  procedure(modelGet),
  procedure(modelDelete),
  procedure(configGet),
  procedure(configSet),
  procedure(configDisable),
  procedure(configEditTable),
  procedure(verify),
  procedure(rollout),
  procedure(rollback),
  procedure(prune),
];

const COMMANDS: Record<string, Command> = {
  "model export": {
    summary: "convert an XGBoost or LightGBM model into the relevance artifact model-<index>.json",
    usage:
      "relevance model export --from xgboost|lightgbm --input F --model-id ID --title-field F|null --tags-field F|null --out model-<index>.json",
    flags: exportFlags,
    run: modelExport,
  },
  "model predict": {
    summary: "predict JSON-lines feature rows with an artifact (prints prediction and 0..10 score)",
    usage: "relevance model predict --model model-<index>.json --input rows.jsonl|-",
    flags: predictFlags,
    run: modelPredict,
  },
  "model inspect": {
    summary: "summarize an artifact: trees, depth, nodes, features, trained fields, source, size",
    usage: "relevance model inspect --model model-<index>.json [--json]",
    flags: inspectFlags,
    run: modelInspect,
  },
  "features log": featuresLogCommand,
  "worker check": {
    summary: "check the search Worker's wrangler config for an environment before deploying it",
    usage: "relevance worker check --env dev|staging|preprod|prod [--wrangler F] [--json]",
    flags: workerCheckFlags,
    run: workerCheck,
  },
  ...Object.fromEntries(PROCEDURES),
};

function mainHelp(): string {
  const rows = Object.entries(COMMANDS).map(
    ([name, c]) => `  ${name.padEnd(18)}${c.summary}\n      ${c.usage}`,
  );
  return [
    "relevance: tools for the search relevance score",
    "",
    "Operating procedures take --env local|dev|staging|preprod|prod (environments from relevance.environments.json,",
    "or --config F / $RELEVANCE_ENVIRONMENTS; credentials from CLOUDFLARE_API_TOKEN, CLOUDFLARE_ACCOUNT_ID, the AWS",
    "default chain and ADMIN_TOKEN; local is the npm start stack at DATA_DIR and PORT) and --json. See docs/operations.md.",
    "",
    "Commands:",
    ...rows,
    "",
    "Run `relevance <command> --help` for a command's flags. Exit 0 on success, 1 on bad input or a failed step,",
    "2 on bad usage.",
    "",
  ].join("\n");
}

/** Runs one invocation; returns the exit code. Errors are one line on stderr, never a stack trace. */
export async function runRelevance(argv: string[], io: Io): Promise<number> {
  const wantsHelp = argv.includes("--help") || argv.includes("-h");
  // Two-word commands ("model upload") first, then one-word ones ("rollout").
  const twoWords = argv.slice(0, 2).join(" ");
  const name = COMMANDS[twoWords] !== undefined ? twoWords : (argv[0] ?? "");
  const command = argv[0]?.startsWith("-") ? undefined : COMMANDS[name];
  if (command === undefined) {
    if (wantsHelp || argv.length === 0) {
      io.out(mainHelp());
      return argv.length === 0 ? USAGE_EXIT : 0;
    }
    io.err(`relevance: unknown command "${argv.join(" ")}" (see relevance --help)\n`);
    return USAGE_EXIT;
  }
  if (wantsHelp) {
    io.out(`${command.summary}\n\nUsage: ${command.usage}\n\nFlags:\n${flagHelp(command.flags)}\n`);
    return 0;
  }
  try {
    return await command.run(argv.slice(name.split(" ").length), io);
  } catch (error) {
    if (error instanceof UserError) {
      io.err(`relevance ${name}: ${error.message}\n`);
      return error.exitCode;
    }
    // A bug, not bad input: say so plainly; the cause goes to stderr only when asked for.
    io.err(`relevance ${name}: internal error: ${(error as Error).message}\n`);
    if (process.env.RELEVANCE_DEBUG) io.err(`${(error as Error).stack}\n`);
    return 70;
  }
}
