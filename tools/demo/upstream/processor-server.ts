import { optionalString, positiveCents, requiredString } from "./body-fields";
import { newId } from "./ids";
import { HttpError, errorReply } from "./json-http";
import { runMutation } from "./mutation";
import type { Outcome } from "./reference-ledger";
import { startUpstream } from "./upstream-server";
import type { DemoUpstream, DemoUpstreamOptions } from "./upstream-types";

/** The card the demo processor always declines (402 card_declined, recorded as "failed"). */
export const DECLINED_CARD = "c_declined";

/** Long enough for the 64-hex keys the idempotency guard derives, with room for other schemes. */
const MAX_REFERENCE = 255;

export interface Charge {
  id: string;
  status: "succeeded";
  amount_cents: number;
  currency: string;
  card_last4: string;
  reference: string | null;
  created_at: string;
}

export interface Refund {
  id: string;
  status: "succeeded";
  charge_id: string;
  amount_cents: number;
  reference: string | null;
  created_at: string;
}

interface ChargeRequest {
  card: string;
  amount_cents: number;
  currency: string;
  reference: string | undefined;
}

interface RefundRequest {
  charge_id: string;
  amount_cents: number;
  reference: string | undefined;
}

function parseCharge(body: Record<string, unknown>): ChargeRequest {
  const currency = optionalString(body, "currency", 3) ?? "usd";
  if (!/^[a-zA-Z]{3}$/.test(currency))
    throw new HttpError(400, "invalid_request", "currency: expected a 3-letter code");
  return {
    card: requiredString(body, "card"),
    amount_cents: positiveCents(body, "amount_cents"),
    currency: currency.toLowerCase(),
    reference: optionalString(body, "reference", MAX_REFERENCE),
  };
}

function parseRefund(body: Record<string, unknown>): RefundRequest {
  return {
    charge_id: requiredString(body, "charge_id"),
    amount_cents: positiveCents(body, "amount_cents"),
    reference: optionalString(body, "reference", MAX_REFERENCE),
  };
}

/**
 * The demo payment processor. `reference` is its own idempotency reference (as Stripe's
 * Idempotency-Key): the same reference again returns the first answer and charges nothing.
 */
export function startDemoProcessor(options: DemoUpstreamOptions = {}): Promise<DemoUpstream> {
  const charges = new Map<string, Charge>();
  const refunded = new Map<string, number>();

  // `at`: the request's time, so the receipt's created_at is when the charge happened (simulated in the demo's history).
  function charge(request: ChargeRequest, at: Date): Outcome {
    const reference = request.reference ?? null;
    if (request.card === DECLINED_CARD) {
      const decline = errorReply(402, "card_declined", "the card was declined");
      return { status: "failed", reply: decline, receipt: { ...(decline.body as object), reference } };
    }
    const created: Charge = {
      id: newId("ch"),
      status: "succeeded",
      amount_cents: request.amount_cents,
      currency: request.currency,
      card_last4: request.card.slice(-4),
      reference,
      created_at: at.toISOString(),
    };
    charges.set(created.id, created);
    return { status: "succeeded", reply: { status: 200, body: created }, receipt: created };
  }

  function refund(request: RefundRequest, at: Date): Outcome {
    const original = charges.get(request.charge_id);
    if (!original) throw new HttpError(404, "charge_not_found", `no charge ${request.charge_id}`);
    const already = refunded.get(original.id) ?? 0;
    if (already + request.amount_cents > original.amount_cents) {
      const left = original.amount_cents - already;
      throw new HttpError(400, "amount_exceeds_charge", `amount_cents: at most ${left} is left to refund`);
    }
    refunded.set(original.id, already + request.amount_cents);
    const created: Refund = {
      id: newId("re"),
      status: "succeeded",
      charge_id: original.id,
      amount_cents: request.amount_cents,
      reference: request.reference ?? null,
      created_at: at.toISOString(),
    };
    return { status: "succeeded", reply: { status: 200, body: created }, receipt: created };
  }

  return startUpstream(
    {
      name: "demo processor",
      resetState: () => {
        charges.clear();
        refunded.clear();
      },
      routes: [
        {
          method: "POST",
          path: "/charges",
          kind: "mutation",
          handle: (context) =>
            runMutation(context, {
              parse: parseCharge,
              reference: (r) => r.reference,
              perform: (r, _ref, at) => charge(r, at),
            }),
        },
        {
          method: "POST",
          path: "/refunds",
          kind: "mutation",
          handle: (context) =>
            runMutation(context, {
              parse: parseRefund,
              reference: (r) => r.reference,
              perform: (r, _ref, at) => refund(r, at),
            }),
        },
        {
          method: "GET",
          path: "/charges/:id",
          kind: "query",
          handle: ({ params }) => {
            const found = charges.get(params.id ?? "");
            return found ? { status: 200, body: found } : errorReply(404, "not_found", `no charge ${params.id}`);
          },
        },
      ],
    },
    options,
  );
}
