export {
  assertNotReserved,
  fromDynamoItem,
  MARSHALL_OPTIONS,
  RESERVED_ATTRIBUTES,
  toDynamoItem,
} from "./attributes.ts";
export {
  createSettingsTableInput,
  DynamoSettingsTable,
  type DynamoSettingsTableOptions,
} from "./settings-table.ts";
export { changeFromStreamRecord, changesFromStreamEvent, StreamRecordError } from "./stream-events.ts";
