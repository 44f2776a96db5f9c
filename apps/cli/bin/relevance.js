#!/usr/bin/env node
import { runTypeScriptBin } from "../../../tools/ts-bin.js";

await runTypeScriptBin("relevance", new URL("../src/main.ts", import.meta.url));
