/** What one batch step did: how many it took, where the next batch starts, whether one may follow. */
export type BatchStep<P> = { count: number; position: P; more: boolean };

/**
 * Runs `step` from `start` until a batch comes back short (`more` false), each batch starting
 * where the last one ended; `onBatch` sees every batch that took something, in order.
 */
export async function drainBatches<P, B extends BatchStep<P>>(
  start: P,
  step: (position: P) => Promise<B>,
  onBatch: (batch: B) => void,
): Promise<void> {
  let position = start;
  for (;;) {
    const batch = await step(position);
    if (batch.count > 0) onBatch(batch);
    if (!batch.more) return;
    position = batch.position;
  }
}
