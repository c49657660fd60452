import { DECLINED_CARD } from "@/tools/demo/upstream/processor-server";
import { nextBucketEdge } from "@/tools/demo/traffic/buckets";
import { pickHost, type DemoHost } from "@/tools/demo/traffic/demo-hosts";
import { pickAmount, pickCustomer, SERVICE_LEVELS } from "@/tools/demo/traffic/demo-population";
import type { Prng } from "@/tools/demo/traffic/prng";
import type { Args, Scenario, ScenarioKind } from "@/tools/demo/traffic/plan-types";
import { ScenarioWriter, type BuildInput } from "@/tools/demo/traffic/scenario-writer";

const SECOND = 1000;
const MINUTE = 60 * SECOND;
const HOUR = 60 * MINUTE;

/**
 * A slow processor for the planned races: the first call keeps its claim until the duplicate
 * fired alongside has been turned away (at most this long), so the race ends the same way on a
 * busy machine as on an idle one.
 */
const RACE_HOLD_MS = 5000;
/** The processor's extra answer time in bucket_edge_retry (real time: the host's wait is simulated). */
const SLOW_PROCESSOR_MS = 800;

const chargeArgs = (w: ScenarioWriter, amount: number, card = w.customer.card): Args => ({
  card,
  amount_cents: amount,
});
const emailArgs =
  (w: ScenarioWriter, email = w.customer.email) =>
  (ctx: { chargeId?: string }) =>
    ctx.chargeId ? { charge_id: ctx.chargeId, email } : undefined;
const statusArgs = (ctx: { lastRef?: string }) => (ctx.lastRef ? { ref: ctx.lastRef } : undefined);

function purchase(w: ScenarioWriter, rng: Prng): void {
  const amount = pickAmount(rng);
  const charge = w.call("charge_card", 0, chargeArgs(w, amount));
  w.step(charge);
  // The host repeats a call that already succeeded (its own timeout was shorter, or its model asked again): a replay.
  if (rng.chance(0.06)) w.step(w.repeat(charge, w.repeatDelay()));
  let t = rng.int(1, 20) * SECOND + 40 * SECOND;
  if (rng.chance(0.6)) {
    const receipt = w.call("send_receipt_email", t, emailArgs(w));
    w.step(receipt);
    // The same receipt asked for again, minutes or hours later: the business key makes it a replay. Only
    // a model asks: the tool claims no idempotentHint, so no host retries it by itself.
    if (w.host === "cursor" && rng.chance(0.1)) w.step(w.repeat(receipt, rng.int(2, 180) * MINUTE));
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
    const first = w.call("refund_charge", refundAt, refund);
    w.step(first);
    if (rng.chance(0.15)) w.step(w.repeat(first, w.repeatDelay()));
  }
}

function declined(w: ScenarioWriter, rng: Prng): void {
  const charge = w.call("charge_card", 0, chargeArgs(w, pickAmount(rng), DECLINED_CARD));
  w.step(charge);
  // The declined card tried again: the stored decline is replayed, nothing reaches the processor.
  if (rng.chance(0.5)) w.step(w.repeat(charge, w.repeatDelay()));
}

function timeoutRetry(w: ScenarioWriter, rng: Prng): void {
  const charge = w.call("charge_card", 0, chargeArgs(w, pickAmount(rng)), { fault: "timeout" });
  w.step(charge);
  // A host that ignores "Do not retry this call": the claim is still in flight.
  if (rng.chance(0.7)) w.step(w.repeat(charge, w.repeatDelay()));
  if (rng.chance(0.6)) w.step(w.call("get_charge_status", rng.int(1, 10) * MINUTE, statusArgs));
}

function slowRetry(w: ScenarioWriter, rng: Prng): void {
  const charge = w.call("charge_card", 0, chargeArgs(w, pickAmount(rng)));
  // The host times out after a few seconds and retries while the slow first attempt is still
  // talking to the processor (in flight), then once more after it finished (replay). A retry
  // that would reach the next bucket is not made, and then the first call has nothing to hold for.
  const retry = w.repeat(charge, rng.int(4, 9) * SECOND, { delayMs: 100 });
  w.step(retry ? { ...charge, holdForDuplicateMs: RACE_HOLD_MS } : charge, retry);
  w.step(w.repeat(charge, rng.int(20, 90) * SECOND));
}

function concurrentDuplicate(w: ScenarioWriter, rng: Prng): void {
  const charge = chargeArgs(w, pickAmount(rng));
  // The host fires the same call twice at once (a double-submit); the processor is slow.
  w.step(
    w.call("charge_card", 0, charge, { holdForDuplicateMs: RACE_HOLD_MS }),
    w.call("charge_card", 0, charge, { holdForDuplicateMs: RACE_HOLD_MS }),
  );
  if (rng.chance(0.3)) w.step(w.call("send_receipt_email", 50 * SECOND, emailArgs(w)));
}

function crash(w: ScenarioWriter, rng: Prng, fault: "crash-after" | "crash-before" | "failure"): void {
  const charge = w.call("charge_card", 0, chargeArgs(w, pickAmount(rng)), { fault });
  w.step(charge);
  if (rng.chance(0.5)) w.step(w.repeat(charge, w.repeatDelay()));
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
  const first = w.call("create_shipment", 0, args, timesOut ? { fault: "timeout" } : {});
  w.step(first);
  // Retried on the strength of idempotentHint: true — and the carrier ships twice.
  if (timesOut || rng.chance(0.3)) w.step(w.repeat(first, w.repeatDelay()));
  if (rng.chance(0.3)) w.step(w.call("get_shipment_status", rng.int(2, 30) * MINUTE, { order_id: args.order_id }));
}

function refundTimeout(w: ScenarioWriter, rng: Prng): void {
  const amount = pickAmount(rng);
  w.step(w.call("charge_card", 0, chargeArgs(w, amount)));
  const at = rng.int(1, 12) * HOUR;
  const refund = (ctx: { chargeId?: string }) =>
    ctx.chargeId ? { charge_id: ctx.chargeId, amount_cents: amount } : undefined;
  const first = w.call("refund_charge", at, refund, { fault: "timeout" });
  w.step(first);
  if (rng.chance(0.6)) w.step(w.repeat(first, w.repeatDelay()));
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

/**
 * A slow processor, and a host that stopped waiting and retried: the first charge was claimed just
 * before a bucket edge and completed, the retry came just after it, derived another key and was
 * charged again — a duplicate that got through (docs/architecture.md#duplicates-that-got-through).
 */
function bucketEdgeRetry(w: ScenarioWriter, rng: Prng): void {
  const args = chargeArgs(w, pickAmount(rng));
  const delay = Math.max(2 * SECOND, w.repeatDelay());
  const before = rng.int(1, delay / SECOND - 1) * SECOND;
  const offset = nextBucketEdge(w.input.start.getTime() + before) - before - w.input.start.getTime();
  w.step(w.call("charge_card", offset, args, { latencyMs: SLOW_PROCESSOR_MS }));
  w.step(w.call("charge_card", offset + delay, args));
}

/**
 * "Send the receipt to my billing address instead": the charge id (the business key) again, with
 * other arguments. The guard refuses it (arguments_mismatch) rather than replay the first receipt.
 */
function receiptElsewhere(w: ScenarioWriter, rng: Prng): void {
  w.step(w.call("charge_card", 0, chargeArgs(w, pickAmount(rng))));
  const t = rng.int(40, 60) * SECOND;
  w.step(w.call("send_receipt_email", t, emailArgs(w)));
  w.step(
    w.call(
      "send_receipt_email",
      t + rng.int(2, 120) * MINUTE,
      emailArgs(w, w.customer.email.replace("@", "+billing@")),
    ),
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
  ["receipt_elsewhere", 0.4],
  // A few a day: each is a second charge nobody wanted.
  ["bucket_edge_retry", 0.04],
];

/** The stories only a host that retries by itself tells. */
const FAST_HOST_KINDS: ReadonlySet<ScenarioKind> = new Set(["slow_retry", "concurrent_duplicate", "bucket_edge_retry"]);

export function buildScenario(kind: ScenarioKind, input: BuildInput): Scenario {
  const { rng } = input;
  const customer = pickCustomer(rng);
  const host: DemoHost = FAST_HOST_KINDS.has(kind) ? "claude-desktop" : pickHost(rng);
  // The live tail's customer: same tenant, a subject nobody else is (so no key can collide).
  const w = new ScenarioWriter(
    input,
    kind.startsWith("live_") ? { ...customer, subject: "user_live", card: "c_live" } : customer,
    host,
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
    case "bucket_edge_retry":
      bucketEdgeRetry(w, rng);
      break;
    case "receipt_elsewhere":
      receiptElsewhere(w, rng);
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
  return { kind, host, start: input.start, steps: w.steps };
}
