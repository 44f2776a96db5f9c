// `npm run bench`: every benchmark, each in its own Node process so that one's JIT state and
// garbage cannot colour the next. Each prints its table and writes bench-results/<name>.json.
import { execFileSync } from "node:child_process";
import { fileURLToPath } from "node:url";

const suites = ["relevance-core", "settings", "search", "monitor", "cost", "hostile", "quality"];
const only = process.argv.slice(2);
for (const suite of suites) {
  if (only.length > 0 && !only.includes(suite)) continue;
  const file = fileURLToPath(new URL(`./bench/${suite}.ts`, import.meta.url));
  execFileSync(process.execPath, [file], { stdio: "inherit" });
}
