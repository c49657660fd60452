import { claimOrRead, complete } from "./claim.ts";
import { checkArgumentsInKey, deriveKey, type KeyScheme } from "./derive-key.ts";
import { appendEvent, type EventKind } from "./events.ts";
import { argumentsMismatchMessage, inFlightMessage, outcomeUnknownMessage } from "./messages.ts";
import { OutcomeUnknownError } from "./outcome-unknown-error.ts";
import type { Queryable } from "./queryable.ts";

export type GuardConfig = {
  db: Queryable;
  tool: string;
  /** The read-only tool a caller should use to check on a ref ("get_charge_status"). */
  statusTool: string;
  /** How messages name the operation: "A charge", "A shipment". */
  noun?: string;
  /** How messages name the far side: "processor", "carrier". */
  upstream?: string;
  clock?: () => Date;
  windowSeconds?: number;
  scheme?: KeyScheme;
  /** A real business key (an order id) to use instead of the time bucket, when the domain has one. */
  businessKey?: (args: unknown) => string | undefined;
  /**
   * Default true: the key covers the canonical arguments too, so the same business key with other
   * arguments is another operation and runs. False: the business key alone names the operation
   * (as a payment API's Idempotency-Key does): a second call under it with other arguments is
   * refused with `arguments_mismatch` (nothing run, nothing replayed), and one with the same
   * arguments is replayed. Needs `businessKey`, and every call must get one (a call whose
   * `businessKey` returns undefined throws `KeyInputError`).
   */
  argumentsInKey?: boolean;
  /** Append replay/in-flight/unknown/mismatch events (docs/architecture.md#columns). Default true. */
  recordEvents?: boolean;
  /** Called when the claim statement lost a race and needed its second look-up (for tests and metrics). */
  onRace?: () => void;
};

export type GuardedCall = {
  tenant: string;
  subject: string | null;
  argumentsJson: string;
  /** The calling host ("name version" from the MCP handshake), written on events; null when unknown. */
  client?: string | null;
};
export type HandlerContext = { key: string; ref: string; args: unknown; at: Date };

export type GuardResult<R> =
  | { outcome: "executed"; key: string; ref: string; response: R }
  | { outcome: "replayed"; key: string; ref: string; response: unknown }
  | { outcome: "in_flight"; key: string; ref: string; message: string; status: string }
  | { outcome: "outcome_unknown"; key: string; ref: string; message: string }
  /** The key's row holds other arguments (a business key reused): refused, nothing run, nothing replayed. */
  | { outcome: "arguments_mismatch"; key: string; ref: string; message: string };

/**
 * Wraps a side-effecting handler so a repeat of the same call has no second effect: the key is
 * claimed before the side effect, a completed row's response is replayed, a claim still in flight
 * is reported with its ref, and a timeout leaves the claim in flight and says the outcome is unknown.
 * A handler that throws anything else leaves the claim in flight too (it may have acted): that
 * is the stuck row the console's operators and reconciler resolve.
 * A row whose recorded `arguments_sha256` differs from the call's is another operation under the
 * same key (a business key reused with other arguments): the call is refused, as a payment API
 * refuses a reused Idempotency-Key, never answered with that operation's response. A row that
 * records no hash (NULL: a writer that fills no optional column) is replayed or reported in flight
 * as before. With `argumentsInKey: false` the business key alone names the operation, so that
 * refusal is what a second call under one order id with other arguments gets.
 * Throws `KeyInputError` at once for `argumentsInKey: false` without a `businessKey`.
 */
export function withIdempotency<R>(config: GuardConfig, handler: (ctx: HandlerContext) => Promise<R>) {
  const clock = config.clock ?? (() => new Date());
  const noun = config.noun ?? "An operation";
  const upstream = config.upstream ?? "processor";
  const recordEvents = config.recordEvents ?? true;
  const argumentsInKey = checkArgumentsInKey(config.argumentsInKey, config.businessKey !== undefined);

  return async (call: GuardedCall): Promise<GuardResult<R>> => {
    const at = clock();
    const args: unknown = JSON.parse(call.argumentsJson);
    const { key, ref, argumentsSha256 } = deriveKey({
      tenant: call.tenant,
      subject: call.subject,
      tool: config.tool,
      argumentsJson: call.argumentsJson,
      at,
      windowSeconds: config.windowSeconds,
      scheme: config.scheme,
      businessKey: config.businessKey?.(args),
      argumentsInKey,
    });
    const event = (kind: EventKind, detail?: unknown) =>
      recordEvents
        ? appendEvent(config.db, {
            key,
            tenant: call.tenant,
            tool: config.tool,
            kind,
            at: clock(),
            detail,
            client: call.client ?? null,
          })
        : Promise.resolve();

    const claim = await claimOrRead(
      config.db,
      { key, tenant: call.tenant, subject: call.subject, tool: config.tool, argumentsSha256, at },
      config.onRace,
    );
    if (!claim.claimed) {
      if (claim.argumentsSha256 !== null && claim.argumentsSha256 !== argumentsSha256) {
        await event("arguments_mismatch", { stored: claim.argumentsSha256, call: argumentsSha256 });
        return {
          outcome: "arguments_mismatch",
          key,
          ref,
          message: argumentsMismatchMessage(noun, ref, config.statusTool),
        };
      }
      if (claim.status === "completed") {
        await event("replay_served");
        return { outcome: "replayed", key, ref, response: claim.response };
      }
      await event("in_flight_rejected", { status: claim.status });
      return {
        outcome: "in_flight",
        key,
        ref,
        status: claim.status,
        message: inFlightMessage(noun, ref, config.statusTool),
      };
    }

    let response: R;
    try {
      response = await handler({ key, ref, args, at });
    } catch (error) {
      if (!(error instanceof OutcomeUnknownError)) throw error;
      await event("outcome_unknown", { reason: error.message });
      return {
        outcome: "outcome_unknown",
        key,
        ref,
        message: outcomeUnknownMessage(upstream, noun, ref, config.statusTool, error.waitedMs),
      };
    }
    await complete(config.db, key, response, clock());
    return { outcome: "executed", key, ref, response };
  };
}
