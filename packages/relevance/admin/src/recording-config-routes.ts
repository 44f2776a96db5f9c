/**
 * The admin side of `relevance_recording_config`: which share of an index's (or alias's) scored
 * searches is recorded (`…/indexes/{index}/relevance-recording-config`): the admin API takes
 * `{relevanceRecordingConfig: {sampleRate}}` (or null for the default, every search), the settings
 * record stores `relevance_recording_config: {sample_rate}`, and the search reads its KV copy
 * (SettingsView.relevanceRecordingConfig).
 */
import { type RecordingConfig, RecordingConfigBodySchema, RecordingConfigSchema } from "@relevance/outcomes";
import { type IndexSettingDeps, indexSettingRouteDocs, indexSettingRoutes } from "./index-setting-routes.ts";
import type { BodyLimitAnswers } from "./openapi-parts.ts";

const RECORDING = {
  segment: "relevance-recording-config",
  attribute: "relevance_recording_config",
  bodyKey: "relevanceRecordingConfig",
  label: "relevance recording config",
  schema: RecordingConfigBodySchema,
  stored: RecordingConfigSchema,
  toStored: (c: { sampleRate: number }): RecordingConfig => ({ sample_rate: c.sampleRate }),
  fromStored: (s: RecordingConfig) => ({ sampleRate: s.sample_rate }),
  logFields: (c: { sampleRate: number } | null) => ({ sampleRate: c?.sampleRate ?? null }),
  docs: {
    nullMeans: "every scored search is recorded",
    notSet: "every search recorded",
    readSummary:
      "Read the relevance recording config (the sample rate of recorded searches) of an index or alias.",
    readAnswer: "The config (null when not set: every scored search is recorded) and the record's version.",
    whileMalformed: "every search is recorded",
    putSummary:
      "Set (or with null remove) the relevance recording config; a conditional write on the record's version.",
    written: "Written.",
    refused: "Body not JSON, other keys, or sampleRate missing, not a number or outside 0 to 1.",
  },
};

export const recordingConfigRoutes = (deps: IndexSettingDeps) => indexSettingRoutes(RECORDING, deps);
export const recordingConfigRouteDocs = (limits: BodyLimitAnswers) =>
  indexSettingRouteDocs(RECORDING, limits);
