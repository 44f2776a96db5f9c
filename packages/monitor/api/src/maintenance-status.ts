/**
 * What the status body takes of the maintenance windows: the windows in effect (`maintenance`),
 * which collectors they cover (`in_maintenance`), and where each collector's freshness counts from
 * after a window (the health rules' anchor), all at the status's `now`.
 */
import {
  activeMaintenance,
  type FreshnessAnchorFn,
  freshnessAnchors,
  type MaintenanceWindow,
  maintenanceCoversCollector,
} from "@monitor/core";
import type { z } from "zod";
import { maintenanceJson } from "./maintenance.ts";
import type { MaintenanceWindowSchema } from "./schemas/maintenance.ts";

export function statusMaintenance(
  windows: readonly MaintenanceWindow[] | undefined,
  now: number,
): {
  anchor: FreshnessAnchorFn | undefined;
  covers: (collector: string) => boolean;
  part: { maintenance?: z.input<typeof MaintenanceWindowSchema>[] };
} {
  if (windows === undefined) return { anchor: undefined, covers: () => false, part: {} };
  const active = activeMaintenance(windows, now).map((a) => a.window);
  return {
    anchor: freshnessAnchors(windows, now),
    covers: (collector) => active.some((w) => maintenanceCoversCollector(w.scope, collector)),
    part: { maintenance: active.map((w) => maintenanceJson(w, now)) },
  };
}
