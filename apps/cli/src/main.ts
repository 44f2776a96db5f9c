// node:sqlite (the stores of the local environment) prints an ExperimentalWarning when loaded; the
// CLI promises one clear line on stderr, so that one warning is dropped before anything loads it.
const emitWarning = process.emitWarning;
process.emitWarning = ((warning: string | Error, ...rest: unknown[]) => {
  const text = typeof warning === "string" ? warning : warning.message;
  if (/SQLite is an experimental feature/.test(text)) return;
  (emitWarning as (...args: unknown[]) => void).call(process, warning, ...rest);
}) as typeof process.emitWarning;

const { nodeIo } = await import("./io.ts");
const { runRelevance } = await import("./relevance.ts");

process.exitCode = await runRelevance(process.argv.slice(2), nodeIo());
