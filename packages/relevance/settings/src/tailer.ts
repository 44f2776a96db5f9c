import { type ExporterDeps, type ExportOutcome, exportChange } from "./exporter.ts";
import type { Change } from "./ports.ts";

/** A change stream read in order from a persisted cursor (the embedded SQLite change log). */
export interface ChangeSource {
  cursor(): Promise<number>;
  read(after: number, limit: number): Promise<Change[]>;
  /** Persists that everything up to `sequence` is done. */
  commit(sequence: string): Promise<void>;
  /** Keeps a change that could not be exported after all retries, for an operator to replay. */
  park(change: Change, error: string): Promise<void>;
}

export interface TailerOptions extends ExporterDeps {
  batchSize?: number;
  /** Poll interval when nothing woke the tailer up (writes by another process). */
  pollMs?: number;
  onExported?: (change: Change, outcome: ExportOutcome) => void;
}

/**
 * Runs the exporter over the change stream: strictly in sequence order, committing the cursor after
 * each change, so a crash re-exports at most the change in flight (exports are idempotent) and
 * never skips one. A change that still fails after its retries is parked with an error log and the
 * stream moves on, so one poison record cannot stop every other index's settings.
 */
export class ChangeTailer {
  private readonly source: ChangeSource;
  private readonly options: TailerOptions;
  private wake: (() => void) | null = null;
  private pending = false;
  private stopped = false;
  private running: Promise<void> | null = null;

  constructor(source: ChangeSource, options: TailerOptions) {
    this.source = source;
    this.options = options;
  }

  /** Asks the tailer to look for new changes now. */
  poke(): void {
    this.pending = true;
    this.wake?.();
  }

  start(): void {
    this.running ??= this.loop();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    this.wake?.();
    await this.running;
  }

  /** Exports everything currently in the stream; returns how many changes were processed. */
  async drain(): Promise<number> {
    const { batchSize = 100, log } = this.options;
    let processed = 0;
    for (;;) {
      const batch = await this.source.read(await this.source.cursor(), batchSize);
      if (batch.length === 0) return processed;
      for (const change of batch) {
        if (this.stopped) return processed;
        const outcome = await exportChange(change, this.options);
        if (outcome.status === "failed") {
          await this.source.park(change, outcome.error);
          log.error("settings change parked after retries", {
            pk: change.pk,
            sk: change.sk,
            key: outcome.key,
            sequence: change.sequence,
            error: outcome.error,
          });
        }
        // Reported before the cursor moves: a crash in between exports the change again (harmless,
        // exports are idempotent), while the other order could lose the report of a committed one.
        this.options.onExported?.(change, outcome);
        await this.source.commit(change.sequence);
        processed++;
      }
    }
  }

  private async loop(): Promise<void> {
    const pollMs = this.options.pollMs ?? 250;
    while (!this.stopped) {
      this.pending = false;
      try {
        await this.drain();
      } catch (error) {
        // The source itself failed (e.g. the database is locked); try again on the next round.
        this.options.log.error("change stream read failed", { error: (error as Error).message });
      }
      if (this.stopped || this.pending) continue;
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, pollMs);
        this.wake = () => {
          clearTimeout(timer);
          resolve();
        };
      });
      this.wake = null;
    }
  }
}
