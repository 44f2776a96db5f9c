/**
 * `npm run build:page-client`: rewrites the bundled browser clients of the pages the stack serves:
 * packages/monitor/api/src/page/client-bundle.gen.ts (the /system page, see that package's
 * src/page/client-build.ts) and packages/relevance/quality-page/src/client-bundle.gen.ts (the
 * search team's quality page).
 */
import { writeFileSync } from "node:fs";
import { GENERATED, pageClientModule } from "../packages/monitor/api/src/page/client-build.ts";
import {
  GENERATED as QUALITY_GENERATED,
  qualityClientModule,
} from "../packages/relevance/quality-page/src/client-build.ts";

for (const [file, make] of [
  [GENERATED, pageClientModule],
  [QUALITY_GENERATED, qualityClientModule],
] as const) {
  const text = await make();
  writeFileSync(file, text);
  console.log(`wrote ${file} (${text.length} characters)`);
}
