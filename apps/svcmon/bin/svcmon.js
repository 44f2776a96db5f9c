#!/usr/bin/env node
import { runTypeScriptBin } from "../../../tools/ts-bin.js";

await runTypeScriptBin("svcmon", new URL("../src/main.ts", import.meta.url));
