import { nodeIo } from "./io.ts";
import { runRelevance } from "./relevance.ts";

process.exitCode = await runRelevance(process.argv.slice(2), nodeIo());
