import type pg from "pg";

/**
 * A CHECKPOINT right before each measured phase. Without it a checkpoint the bench load's WAL set
 * off lands in whichever phase comes first, and its full-page writes (the first change of every
 * index page after a checkpoint logs the whole page) stall the writers: at 10 M rows the first
 * phase's writer p99 was 1,177 ms alone, 8.7 ms in a later phase with no checkpoint running. So
 * every phase starts the same way — just after a checkpoint — and a 20 s phase stays far from the
 * next one (max_wal_size, checkpoint_timeout). Needs superuser or pg_checkpoint: otherwise said, once.
 */
export async function checkpointBeforePhase(client: pg.Client): Promise<string | null> {
  try {
    await client.query("CHECKPOINT");
    return null;
  } catch (error) {
    return error instanceof Error ? error.message : String(error);
  }
}
