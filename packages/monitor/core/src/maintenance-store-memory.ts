/** The in-memory `MaintenanceStore` (tests, and any stack without a persistent one). */

import { windowOver } from "@monitor/jobs";
import type { MaintenanceWindow } from "./alerts/index.ts";
import type { MaintenanceStore } from "./ports.ts";

export const byWindowCreated = (a: MaintenanceWindow, b: MaintenanceWindow): number =>
  a.createdAt - b.createdAt || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);

/** `end` on a list of windows: the window as now stored, or null; `changed` when it was ended by this call. */
export function endWindow(
  list: MaintenanceWindow[],
  id: string,
  at: number,
): { window: MaintenanceWindow | null; changed: boolean } {
  const w = list.find((x) => x.id === id);
  if (w === undefined) return { window: null, changed: false };
  if (w.endedAt !== null && w.endedAt <= at) return { window: structuredClone(w), changed: false };
  w.endedAt = at;
  return { window: structuredClone(w), changed: true };
}

/** The windows kept by `prune(before)`: those not over before it. */
export function keptWindows(list: readonly MaintenanceWindow[], before: number): MaintenanceWindow[] {
  return list.filter((w) => !windowOver(w, before - 1));
}

export class InMemoryMaintenanceStore implements MaintenanceStore {
  #rows: MaintenanceWindow[] = [];

  async create(window: MaintenanceWindow): Promise<boolean> {
    if (this.#rows.some((w) => w.id === window.id)) return false;
    this.#rows.push(structuredClone(window));
    return true;
  }

  async list(): Promise<MaintenanceWindow[]> {
    return this.#rows.map((w) => structuredClone(w)).sort(byWindowCreated);
  }

  async end(id: string, at: number): Promise<MaintenanceWindow | null> {
    return endWindow(this.#rows, id, at).window;
  }

  async prune(before: number): Promise<number> {
    const kept = keptWindows(this.#rows, before);
    const n = this.#rows.length - kept.length;
    this.#rows = kept;
    return n;
  }
}
