// What the Cloudflare Worker needs of the search proxy: the app and its settings, without the
// OpenAPI document generator (its zod-to-openapi layer would only add bundle weight there; the
// Worker serves no document). The root entry exports the same names and the document.
import * as z from "zod";

// workerd refuses eval and new Function. zod already skips its compiled parsers when it sees the
// Workers user agent; saying it here keeps that true whatever zod detects.
z.config({ jitless: true });

export { ARTIFACT_MAX_BYTES_ENV, artifactMaxBytes, DEFAULT_ARTIFACT_MAX_BYTES } from "@relevance/core";
export { createSearchApp, type SearchAppDeps } from "./app.ts";
export { DEFAULT_EVENTS_PER_KEY_PER_SECOND } from "./events.ts";
export { DEFAULT_MODEL_CACHE_MB } from "./limits.ts";
export { recordingTuning } from "./recording-env.ts";
export { outcomesEnvProblems, workerEnvProblems } from "./worker-env.ts";
