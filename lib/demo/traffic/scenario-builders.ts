import { DECLINED_CARD } from "@/lib/demo/upstream/processor-server";
import { pickAmount, pickCustomer, SERVICE_LEVELS, type Customer } from "@/lib/demo/traffic/demo-population";
import type { Prng } from "@/lib/demo/traffic/prng";
import type { Args, PlannedCall, Scenario, ScenarioKind, Step } from "@/lib/demo/traffic/plan-types";

const SECOND = 1000;
const MINUTE = 60 * SECOND;
const HOUR = 60 * MINUTE;

/**
 * A slow processor for the planned races: the first call keeps its claim until the duplicate
 * fired alongside has been turned away (at most this long), so the race ends the same way on a
 * busy machine as on an idle one.
 */
const RACE_HOLD_MS = 5000;

export type BuildInput = { rng: Prng; start: Date; end: Date; nextOrderId: () => string };

/** One scenario's calls, built relative to its start; calls planned after `end` are dropped. */
class ScenarioWriter {
  readonly steps: Step[] = [];
  constructor(
    readonly input: BuildInput,
    readonly customer: Customer,
  ) {}

  at(offsetMs: number): Date {
    return new Date(this.input.start.getTime() + offsetMs);
  }

  call(
    tool: PlannedCall["tool"],
    offsetMs: number,
    args: PlannedCall["args"],
    extra: Partial<PlannedCall> = {},
  ): PlannedCall {
    return {
      tool,
      at: this.at(offsetMs),
      tenant: this.customer.tenant,
      subject: this.customer.subject,
      args,
      ...extra,
    };
  }

  step(...calls: PlannedCall[]): this {
    const kept = calls.filter((c) => c.at.getTime() <= this.input.end.getTime());
    if (kept.length > 0) this.steps.push(kept);
    return this;
  }
}

const chargeArgs = (w: ScenarioWriter, amount: number, card = w.customer.card): Args => ({
  card,
  amount_cents: amount,
});
const emailArgs = (w: ScenarioWriter) => (ctx: { chargeId?: string }) =>
  ctx.chargeId ? { charge_id: ctx.chargeId, email: w.customer.email } : undefined;
const statusArgs = (ctx: { lastRef?: string }) => (ctx.lastRef ? { ref: ctx.lastRef } : undefined);

function purchase(w: ScenarioWriter, rng: Prng): void {
  const amount = pickAmount(rng);
  const charge = chargeArgs(w, amount);
  w.step(w.call("charge_card", 0, charge));
  // A host that retries a call that already succeeded (its own timeout was shorter): a replay.
  if (rng.chance(0.06)) w.step(w.call("charge_card", rng.int(3, 40) * SECOND, charge));
  let t = rng.int(1, 20) * SECOND + 40 * SECOND;
  if (rng.chance(0.6)) {
    w.step(w.call("send_receipt_email", t, emailArgs(w)));
    // The same receipt asked for again, minutes or hours later: the business key makes it a replay.
    if (rng.chance(0.05)) w.step(w.call("send_receipt_email", t + rng.int(2, 180) * MINUTE, emailArgs(w)));
  }
  if (rng.chance(0.2)) {
    t += rng.int(1, 30) * MINUTE;
    w.step(
      w.call("create_shipment", t, {
        order_id: w.input.nextOrderId(),
        address: w.customer.address,
        service_level: rng.pick(SERVICE_LEVELS),
      }),
    );
  }
  if (rng.chance(0.04)) w.step(w.call("get_charge_status", t + rng.int(1, 60) * MINUTE, statusArgs));
  if (rng.chance(0.1)) {
    const refundAt = rng.int(2, 30) * HOUR;
    const refundAmount = rng.chance(0.6) ? amount : Math.max(1, Math.floor(amount / rng.int(2, 4)));
    const refund = (ctx: { chargeId?: string }) =>
      ctx.chargeId ? { charge_id: ctx.chargeId, amount_cents: refundAmount } : undefined;
    w.step(w.call("refund_charge", refundAt, refund));
    if (rng.chance(0.15)) w.step(w.call("refund_charge", refundAt + rng.int(5, 60) * SECOND, refund));
  }
}

function declined(w: ScenarioWriter, rng: Prng): void {
  const charge = chargeArgs(w, pickAmount(rng), DECLINED_CARD);
  w.step(w.call("charge_card", 0, charge));
  // The model tries the declined card again: the stored decline is replayed, nothing reaches the processor.
  if (rng.chance(0.5)) w.step(w.call("charge_card", rng.int(5, 120) * SECOND, charge));
}

function timeoutRetry(w: ScenarioWriter, rng: Prng): void {
  const charge = chargeArgs(w, pickAmount(rng));
  w.step(w.call("charge_card", 0, charge, { fault: "timeout" }));
  // A host that ignores "Do not retry this call": the claim is still in flight.
  if (rng.chance(0.7)) w.step(w.call("charge_card", rng.int(5, 60) * SECOND, charge));
  if (rng.chance(0.6)) w.step(w.call("get_charge_status", rng.int(1, 10) * MINUTE, statusArgs));
}

function slowRetry(w: ScenarioWriter, rng: Prng): void {
  const charge = chargeArgs(w, pickAmount(rng));
  // The host times out after a few seconds and retries while the slow first attempt is still
  // talking to the processor (in flight), then once more after it finished (replay).
  w.step(
    w.call("charge_card", 0, charge, { holdForDuplicateMs: RACE_HOLD_MS }),
    w.call("charge_card", rng.int(4, 9) * SECOND, charge, { delayMs: 100 }),
  );
  w.step(w.call("charge_card", rng.int(20, 90) * SECOND, charge));
}

function concurrentDuplicate(w: ScenarioWriter, rng: Prng): void {
  const charge = chargeArgs(w, pickAmount(rng));
  // Two hosts (or a double-click) fire the same call at once; the processor is slow.
  w.step(
    w.call("charge_card", 0, charge, { holdForDuplicateMs: RACE_HOLD_MS }),
    w.call("charge_card", 0, charge, { holdForDuplicateMs: RACE_HOLD_MS }),
  );
  if (rng.chance(0.3)) w.step(w.call("send_receipt_email", 50 * SECOND, emailArgs(w)));
}

function crash(w: ScenarioWriter, rng: Prng, fault: "crash-after" | "crash-before" | "failure"): void {
  const charge = chargeArgs(w, pickAmount(rng));
  w.step(w.call("charge_card", 0, charge, { fault }));
  if (rng.chance(0.5)) w.step(w.call("charge_card", rng.int(10, 120) * SECOND, charge));
}

function nextDayRepeat(w: ScenarioWriter, rng: Prng): void {
  const charge = chargeArgs(w, pickAmount(rng));
  w.step(w.call("charge_card", 0, charge));
  // The same purchase again tomorrow: a new time bucket, a new key, a second charge (wanted).
  const room = w.input.end.getTime() - w.input.start.getTime();
  const tomorrow = 24 * HOUR + rng.int(-120, 120) * MINUTE;
  const later =
    room > tomorrow ? tomorrow : room > 30 * MINUTE ? rng.int(20, Math.floor(room / MINUTE) - 1) * MINUTE : undefined;
  if (later !== undefined) w.step(w.call("charge_card", later, charge));
}

function shipment(w: ScenarioWriter, rng: Prng): void {
  const args = {
    order_id: w.input.nextOrderId(),
    address: w.customer.address,
    service_level: rng.pick(SERVICE_LEVELS),
  };
  const timesOut = rng.chance(0.08);
  w.step(w.call("create_shipment", 0, args, timesOut ? { fault: "timeout" } : {}));
  // Retried on the strength of idempotentHint: true — and the carrier ships twice.
  if (timesOut || rng.chance(0.3)) w.step(w.call("create_shipment", rng.int(5, 90) * SECOND, args));
  if (rng.chance(0.3)) w.step(w.call("get_shipment_status", rng.int(2, 30) * MINUTE, { order_id: args.order_id }));
}

function refundTimeout(w: ScenarioWriter, rng: Prng): void {
  const amount = pickAmount(rng);
  w.step(w.call("charge_card", 0, chargeArgs(w, amount)));
  const at = rng.int(1, 12) * HOUR;
  const refund = (ctx: { chargeId?: string }) =>
    ctx.chargeId ? { charge_id: ctx.chargeId, amount_cents: amount } : undefined;
  w.step(w.call("refund_charge", at, refund, { fault: "timeout" }));
  if (rng.chance(0.6)) w.step(w.call("refund_charge", at + rng.int(5, 60) * SECOND, refund));
}

/** The last minutes' claims: one call each, by a customer no other scenario uses. */
function live(w: ScenarioWriter, rng: Prng, fault: "timeout" | "crash-after" | "crash-before"): void {
  w.step(w.call("charge_card", 0, chargeArgs(w, pickAmount(rng)), { fault }));
}

function emailCrash(w: ScenarioWriter, rng: Prng): void {
  w.step(w.call("charge_card", 0, chargeArgs(w, pickAmount(rng))));
  w.step(
    w.call("send_receipt_email", rng.int(30, 90) * SECOND, emailArgs(w), {
      fault: rng.chance(0.5) ? "crash-after" : "crash-before",
    }),
  );
}

export const SCENARIO_WEIGHTS: readonly (readonly [ScenarioKind, number])[] = [
  ["purchase", 62],
  ["shipment", 14],
  ["declined", 3],
  ["timeout_retry", 2.5],
  ["slow_retry", 2],
  ["concurrent_duplicate", 2],
  ["next_day_repeat", 2],
  ["crash_after", 0.7],
  ["crash_before", 0.7],
  ["upstream_failure", 0.3],
  ["refund_timeout", 0.5],
  ["email_crash", 0.3],
];

export function buildScenario(kind: ScenarioKind, input: BuildInput): Scenario {
  const { rng } = input;
  const customer = pickCustomer(rng);
  // The live tail's customer: same tenant, a subject nobody else is (so no key can collide).
  const w = new ScenarioWriter(
    input,
    kind.startsWith("live_") ? { ...customer, subject: "user_live", card: "c_live" } : customer,
  );
  switch (kind) {
    case "purchase":
      purchase(w, rng);
      break;
    case "declined":
      declined(w, rng);
      break;
    case "timeout_retry":
      timeoutRetry(w, rng);
      break;
    case "slow_retry":
      slowRetry(w, rng);
      break;
    case "concurrent_duplicate":
      concurrentDuplicate(w, rng);
      break;
    case "crash_after":
      crash(w, rng, "crash-after");
      break;
    case "crash_before":
      crash(w, rng, "crash-before");
      break;
    case "upstream_failure":
      crash(w, rng, "failure");
      break;
    case "next_day_repeat":
      nextDayRepeat(w, rng);
      break;
    case "shipment":
      shipment(w, rng);
      break;
    case "refund_timeout":
      refundTimeout(w, rng);
      break;
    case "email_crash":
      emailCrash(w, rng);
      break;
    case "live_timeout":
      live(w, rng, "timeout");
      break;
    case "live_crash_after":
      live(w, rng, "crash-after");
      break;
    case "live_crash_before":
      live(w, rng, "crash-before");
      break;
  }
  return { kind, start: input.start, steps: w.steps };
}
