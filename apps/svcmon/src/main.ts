import { main } from "./svcmon.ts";

process.exitCode = await main(process.argv.slice(2));
