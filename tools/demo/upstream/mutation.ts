import { canonicalJson } from "./canonical-json";
import { HttpError, type Reply } from "./json-http";
import type { Outcome } from "./reference-ledger";
import { sleep } from "./sleep";
import type { RouteContext } from "./upstream-route";

export interface MutationSpec<P> {
  /** Validates the body; throws HttpError(400) naming the bad field. */
  parse(body: Record<string, unknown>): P;
  reference(params: P): string | undefined;
  /** Performs the side effect (or records the decline) now; throws HttpError to refuse before doing anything. */
  perform(params: P, reference: string | undefined, at: Date): Outcome;
}

/** Marks a reply served from the ledger, as Stripe's Idempotent-Replayed header does. */
export const REPLAYED_HEADER = "idempotent-replayed";

/**
 * The one path every side-effecting POST takes: a known reference is answered from the ledger
 * (waiting for it if still processing) and performs nothing; anything else is performed once,
 * then "processes" for the request's latency, during which its reference reads "pending".
 */
export async function runMutation<P>(context: RouteContext, spec: MutationSpec<P>): Promise<Reply> {
  const params = spec.parse(await context.readBody());
  const reference = spec.reference(params);
  const fingerprint = `${context.route} ${canonicalJson(params)}`;

  const prior = reference === undefined ? undefined : context.ledger.find(reference);
  if (prior) {
    if (prior.fingerprint !== fingerprint) {
      throw new HttpError(409, "reference_reused", `reference ${reference} was first used for a different request`);
    }
    context.counters.duplicatePrevented();
    const { reply } = await prior.settled;
    return { ...reply, headers: { ...reply.headers, [REPLAYED_HEADER]: "true" } };
  }

  const outcome = spec.perform(params, reference, context.at);
  if (outcome.status === "succeeded") context.counters.sideEffect(reference);
  const processing = sleep(context.latencyMs, context.stopping);
  if (reference === undefined) {
    await processing;
    return outcome.reply;
  }
  return (await context.ledger.record(reference, fingerprint, outcome, processing)).reply;
}
