import { setImmediate as nextTurn, setTimeout as sleep } from "node:timers/promises";

/** A slice of rows formatted between two turns of the event loop (~2 ms of work). */
export const EXPORT_SLICE_ROWS = 200;
/** The longest pause after one batch: an export under load slows down, it never stalls. */
export const EXPORT_MAX_PAUSE_MS = 50;

export type ExportPacer = {
  /** Between slices of a batch: requests that arrived meanwhile run before the next slice. */
  betweenSlices(): Promise<void>;
  /**
   * After a batch that took `workMs` of formatting: while other requests hold the console's
   * connections, the export pauses as long again (capped), so it takes at most about half the
   * thread from them; with nobody waiting it goes straight on. Returns the pause taken, ms.
   */
  afterBatch(workMs: number): Promise<number>;
};

/**
 * Issue #31, item 1: an export is one long CPU-bound loop on the console's only JavaScript thread.
 * Under load it gives way — between slices always (a turn of the loop costs microseconds), and
 * after each batch when `othersBusy()` says the request pools are in use.
 */
export function createExportPacer(othersBusy: () => boolean): ExportPacer {
  return {
    betweenSlices: () => nextTurn(),
    async afterBatch(workMs) {
      if (!othersBusy()) return 0;
      const pause = Math.min(Math.max(workMs, 1), EXPORT_MAX_PAUSE_MS);
      await sleep(pause);
      return pause;
    },
  };
}
