/**
 * `npm run build:page-client`: rewrites packages/monitor/api/src/page/client-bundle.gen.ts, the
 * /system page's bundled browser client (see that package's src/page/client-build.ts).
 */
import { writeFileSync } from "node:fs";
import { GENERATED, pageClientModule } from "../packages/monitor/api/src/page/client-build.ts";

const text = await pageClientModule();
writeFileSync(GENERATED, text);
console.log(`wrote ${GENERATED} (${text.length} characters)`);
