import { USAGE_EXIT } from "./args.ts";
import { featuresLogCommand } from "./commands/features-log.ts";
import { exportFlags, modelExport } from "./commands/model-export.ts";
import { inspectFlags, modelInspect } from "./commands/model-inspect.ts";
import { modelPredict, predictFlags } from "./commands/model-predict.ts";
import { workerCheck, workerCheckFlags } from "./commands/worker-check.ts";
import { type CommandHelp, commandHelp, mainHelp } from "./help.ts";
import { type Io, UserError } from "./io.ts";
import { configDisable, configEditTable, configGet, configSet } from "./procedures/config.ts";
import { featuresExport } from "./procedures/features-export.ts";
import { modelDelete, modelGet, modelUpload } from "./procedures/model.ts";
import { COMMON_FLAGS, type Procedure, runProcedure } from "./procedures/procedure.ts";
import { prune } from "./procedures/prune.ts";
import { quality } from "./procedures/quality.ts";
import { rollback, rollout } from "./procedures/rollout.ts";
import { verify } from "./procedures/verify.ts";

interface Command extends CommandHelp {
  run(argv: string[], io: Io): Promise<number>;
}

/** An operating procedure as a command: `--env`, `--json` and `--config` come with it. */
function procedure<P>(p: Procedure<P>): [string, Command] {
  return [
    p.name,
    {
      summary: p.summary,
      usage: p.usage,
      examples: p.examples,
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
  procedure(quality),
];

const COMMANDS: Record<string, Command> = {
  "model export": {
    summary: "convert an XGBoost or LightGBM model into the relevance artifact model-<index>.json",
    usage:
      "relevance model export --from xgboost|lightgbm --input F --model-id ID --title-field F|null --tags-field F|null --out model-<index>.json",
    examples: [
      "relevance model export --from xgboost --input xgb-model.json --model-id acme:products:v3 --title-field title --tags-field tags --out model-products.json",
      "relevance model export --from lightgbm --input lgb-dump.json --model-id acme:products:v4 --title-field title --tags-field null --out model-products.json --golden golden.jsonl",
    ],
    flags: exportFlags,
    run: modelExport,
  },
  "model predict": {
    summary: "predict JSON-lines feature rows with an artifact (prints prediction and 0..10 score)",
    usage: "relevance model predict --model model-<index>.json --input rows.jsonl|-",
    examples: [
      "relevance model predict --model model-products.json --input rows.jsonl",
      `echo '{"features": {...}}' | relevance model predict --model model-products.json --input -`,
    ],
    flags: predictFlags,
    run: modelPredict,
  },
  "model inspect": {
    summary: "summarize an artifact: trees, depth, nodes, features, trained fields, source, size",
    usage: "relevance model inspect --model model-<index>.json [--json]",
    examples: [
      "relevance model inspect --model model-products.json",
      "relevance model inspect --model model-products.json --json",
    ],
    flags: inspectFlags,
    run: modelInspect,
  },
  "features log": featuresLogCommand,
  "features export": procedure(featuresExport)[1],
  "worker check": {
    summary: "check the search Worker's wrangler config for an environment before deploying it",
    usage: "relevance worker check --env dev|staging|preprod|prod [--wrangler F] [--json]",
    examples: ["relevance worker check --env prod", "relevance worker check --env staging --json"],
    flags: workerCheckFlags,
    run: workerCheck,
  },
  ...Object.fromEntries(PROCEDURES),
};

/** Every command name, one or two words, in the order `relevance --help` lists them. */
export const commandNames = (): string[] => Object.keys(COMMANDS);

/** Runs one invocation; returns the exit code. Errors are one line on stderr, never a stack trace. */
export async function runRelevance(argv: string[], io: Io): Promise<number> {
  const wantsHelp = argv.includes("--help") || argv.includes("-h");
  // Two-word commands ("model upload") first, then one-word ones ("rollout").
  const twoWords = argv.slice(0, 2).join(" ");
  const name = COMMANDS[twoWords] !== undefined ? twoWords : (argv[0] ?? "");
  const command = argv[0]?.startsWith("-") ? undefined : COMMANDS[name];
  if (command === undefined) {
    if (wantsHelp) {
      io.out(mainHelp(COMMANDS));
      return 0;
    }
    // No command is a usage error: the overview goes to stderr, so a script's stdout stays empty.
    if (argv.length === 0) {
      io.err(mainHelp(COMMANDS));
      return USAGE_EXIT;
    }
    // Only the words before the first flag: flag values may be secrets (--api-key).
    const second = argv[1] !== undefined && !argv[1].startsWith("-") ? ` ${argv[1]}` : "";
    const words = argv[0]?.startsWith("-") ? argv[0] : `${argv[0]}${second}`;
    io.err(`relevance: unknown command "${words}" (see relevance --help)\n`);
    return USAGE_EXIT;
  }
  if (wantsHelp) {
    io.out(commandHelp(name, command));
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
    io.err(
      `relevance ${name}: internal error: ${(error as Error).message} (a bug: RELEVANCE_DEBUG=1 prints its stack for a report)\n`,
    );
    if (process.env.RELEVANCE_DEBUG) io.err(`${(error as Error).stack}\n`);
    return 70;
  }
}
