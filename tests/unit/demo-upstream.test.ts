import { afterEach, describe, expect, it } from "vitest";
import { startDemoCarrier } from "@/tools/demo/upstream/carrier-server";
import { createFaultInjector, DEFAULT_FAULTS } from "@/tools/demo/upstream/fault-injection";
import { DECLINED_CARD, startDemoProcessor } from "@/tools/demo/upstream/processor-server";
import type { DemoUpstream, DemoUpstreamOptions } from "@/tools/demo/upstream/upstream-types";

// Real servers on loopback, real fetch: the counters on the far side are the assertions.

const started: DemoUpstream[] = [];
afterEach(async () => {
  await Promise.all(started.splice(0).map((upstream) => upstream.stop()));
});

async function processor(options: DemoUpstreamOptions = {}): Promise<DemoUpstream> {
  const upstream = await startDemoProcessor(options);
  started.push(upstream);
  return upstream;
}

async function carrier(options: DemoUpstreamOptions = {}): Promise<DemoUpstream> {
  const upstream = await startDemoCarrier(options);
  started.push(upstream);
  return upstream;
}

interface PostOptions {
  fault?: "timeout" | "failure" | "none";
  signal?: AbortSignal;
  raw?: string;
  method?: string;
  latencyMs?: number;
}

async function send(upstream: DemoUpstream, path: string, body: unknown, options: PostOptions = {}) {
  const response = await fetch(`${upstream.url}${path}`, {
    method: options.method ?? "POST",
    headers: {
      "content-type": "application/json",
      ...(options.fault ? { "x-demo-fault": options.fault } : {}),
      ...(options.latencyMs === undefined ? {} : { "x-demo-latency-ms": String(options.latencyMs) }),
    },
    body: options.raw ?? JSON.stringify(body),
    signal: options.signal,
  });
  return {
    status: response.status,
    headers: response.headers,
    body: (await response.json()) as Record<string, unknown>,
  };
}

async function get(upstream: DemoUpstream, path: string) {
  const response = await fetch(`${upstream.url}${path}`);
  return { status: response.status, body: (await response.json()) as Record<string, unknown> };
}

const charge = (reference?: string, amount = 24_000) => ({ card: "c_71", amount_cents: amount, reference });

describe("demo processor: reference is its own idempotency reference", () => {
  it("the same reference twice performs one charge and returns the same charge", async () => {
    const upstream = await processor();
    const first = await send(upstream, "/charges", charge("ref-a"));
    const second = await send(upstream, "/charges", charge("ref-a"));

    expect(first.status).toBe(200);
    expect(first.body).toMatchObject({
      status: "succeeded",
      amount_cents: 24_000,
      card_last4: "c_71",
      reference: "ref-a",
    });
    expect(String(first.body.id)).toMatch(/^ch_/);
    expect(second.body).toEqual(first.body);
    expect(second.headers.get("idempotent-replayed")).toBe("true");
    expect(upstream.stats()).toMatchObject({
      sideEffects: 1,
      sideEffectsByReference: { "ref-a": 1 },
      duplicatesPrevented: 1,
    });
    expect(upstream.stats().requests.byRoute["POST /charges"]).toBe(2);
  });

  it("without a reference every POST is a new charge", async () => {
    const upstream = await processor();
    const first = await send(upstream, "/charges", charge());
    const second = await send(upstream, "/charges", charge());
    expect(first.body.id).not.toBe(second.body.id);
    expect(upstream.stats()).toMatchObject({ sideEffects: 2, sideEffectsWithoutReference: 2, duplicatesPrevented: 0 });
  });

  it("declines c_declined with 402, records it as failed, and replays the decline", async () => {
    const upstream = await processor();
    const declined = { card: DECLINED_CARD, amount_cents: 100, reference: "ref-declined" };
    const first = await send(upstream, "/charges", declined);
    expect(first.status).toBe(402);
    expect(first.body).toMatchObject({ error: { code: "card_declined" } });
    expect((await send(upstream, "/charges", declined)).status).toBe(402);

    const lookup = await get(upstream, "/references/ref-declined");
    expect(lookup).toMatchObject({
      status: 200,
      body: { status: "failed", receipt: { error: { code: "card_declined" } } },
    });
    expect(upstream.stats()).toMatchObject({ sideEffects: 0, duplicatesPrevented: 1 });
  });

  it("refuses a reference reused for a different request, performing nothing", async () => {
    const upstream = await processor();
    await send(upstream, "/charges", charge("ref-reused", 100));
    const other = await send(upstream, "/charges", charge("ref-reused", 101));
    expect(other.status).toBe(409);
    expect(other.body).toMatchObject({ error: { code: "reference_reused" } });
    expect(upstream.stats().sideEffects).toBe(1);
  });

  it("refunds are idempotent by reference and never exceed the charge", async () => {
    const upstream = await processor();
    const { body: taken } = await send(upstream, "/charges", charge("ref-charge", 1000));
    const refund = { charge_id: taken.id, amount_cents: 600, reference: "ref-refund" };
    const first = await send(upstream, "/refunds", refund);
    const again = await send(upstream, "/refunds", refund);
    expect(first.status).toBe(200);
    expect(String(first.body.id)).toMatch(/^re_/);
    expect(again.body.id).toBe(first.body.id);

    const tooMuch = await send(upstream, "/refunds", {
      charge_id: taken.id,
      amount_cents: 600,
      reference: "ref-refund-2",
    });
    expect(tooMuch).toMatchObject({ status: 400, body: { error: { code: "amount_exceeds_charge" } } });
    const unknown = await send(upstream, "/refunds", {
      charge_id: "ch_nope",
      amount_cents: 1,
      reference: "ref-refund-3",
    });
    expect(unknown.status).toBe(404);
    expect(upstream.stats()).toMatchObject({ sideEffects: 2, duplicatesPrevented: 1 });
    expect((await get(upstream, "/references/ref-refund-2")).status).toBe(404);
  });
});

describe("GET /references/{reference}: what the resolver asks", () => {
  it("answers 404 for an unknown reference and 200 succeeded with the receipt for a known one", async () => {
    const upstream = await processor();
    expect(await get(upstream, "/references/never-seen")).toEqual({
      status: 404,
      body: { error: { code: "not_found", message: "no operation with reference never-seen" } },
    });
    const { body: taken } = await send(upstream, "/charges", charge("ref-known"));
    expect(await get(upstream, "/references/ref-known")).toEqual({
      status: 200,
      body: { status: "succeeded", receipt: taken },
    });
  });

  it("says pending while the charge is processing; a concurrent repeat waits and gets the same charge", async () => {
    const upstream = await processor({ latencyMs: 300 });
    const first = send(upstream, "/charges", charge("ref-slow"));
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(await get(upstream, "/references/ref-slow")).toEqual({ status: 200, body: { status: "pending" } });

    const second = send(upstream, "/charges", charge("ref-slow"));
    const [a, b] = await Promise.all([first, second]);
    expect(b.body.id).toBe(a.body.id);
    expect((await get(upstream, "/references/ref-slow")).body.status).toBe("succeeded");
    expect(upstream.stats()).toMatchObject({ sideEffects: 1, duplicatesPrevented: 1 });
  });

  it("x-demo-latency-ms sets one request's processing time, leaving the others fast", async () => {
    const upstream = await processor();
    const slow = send(upstream, "/charges", charge("ref-one-slow"), { latencyMs: 300 });
    await new Promise((resolve) => setTimeout(resolve, 50));
    const fast = await send(upstream, "/charges", charge("ref-fast"));
    expect(fast.status).toBe(200);
    expect((await get(upstream, "/references/ref-one-slow")).body).toEqual({ status: "pending" });
    expect((await slow).status).toBe(200);
    expect((await get(upstream, "/references/ref-one-slow")).body.status).toBe("succeeded");
  });

  it("honours a forced fault on the look-up too (the resolver's 'unknown' cases); rates never touch it", async () => {
    const upstream = await processor({ failureRate: 1 });
    const lookup = (fault: string, signal?: AbortSignal) =>
      fetch(`${upstream.url}/references/anything`, { headers: { "x-demo-fault": fault }, signal });
    expect((await lookup("failure")).status).toBe(503);
    await expect(lookup("timeout", AbortSignal.timeout(100))).rejects.toThrow(
      expect.objectContaining({ name: "TimeoutError" }),
    );
    expect((await get(upstream, "/references/anything")).status).toBe(404);
  });
});

describe("fault injection", () => {
  it("a timeout takes the charge but holds the answer: the client gives up, the reference says succeeded", async () => {
    const upstream = await processor();
    const attempt = send(upstream, "/charges", charge("ref-timeout"), {
      fault: "timeout",
      signal: AbortSignal.timeout(200),
    });
    await expect(attempt).rejects.toThrow(expect.objectContaining({ name: "TimeoutError" }));

    const lookup = await get(upstream, "/references/ref-timeout");
    expect(lookup.body.status).toBe("succeeded");
    expect(upstream.stats()).toMatchObject({ sideEffects: 1, timeoutsInjected: 1 });

    // The retry the table exists for: same reference, same charge, nothing charged twice.
    const retry = await send(upstream, "/charges", charge("ref-timeout"));
    expect(retry.body).toEqual((lookup.body as { receipt: unknown }).receipt);
    expect(upstream.stats()).toMatchObject({ sideEffects: 1, duplicatesPrevented: 1 });
  });

  it("a held answer is delivered after hangMs to a patient client", async () => {
    const upstream = await processor({ hangMs: 150 });
    const startedAt = Date.now();
    const late = await send(upstream, "/charges", charge("ref-late"), { fault: "timeout" });
    expect(Date.now() - startedAt).toBeGreaterThanOrEqual(140);
    expect(late.status).toBe(200);
  });

  it("a failure answers 503 before any side effect, so a retry performs it once", async () => {
    const upstream = await processor();
    const failed = await send(upstream, "/charges", charge("ref-503"), { fault: "failure" });
    expect(failed).toMatchObject({ status: 503, body: { error: { code: "service_unavailable" } } });
    expect((await get(upstream, "/references/ref-503")).status).toBe(404);
    expect(upstream.stats()).toMatchObject({ sideEffects: 0, failuresInjected: 1 });

    expect((await send(upstream, "/charges", charge("ref-503"))).status).toBe(200);
    expect(upstream.stats()).toMatchObject({ sideEffects: 1, duplicatesPrevented: 0 });
  });

  it("the same seed gives the same sequence of faults; reset() restarts it", async () => {
    const sequence = async (upstream: DemoUpstream) => {
      const statuses: number[] = [];
      for (let i = 0; i < 16; i += 1) statuses.push((await send(upstream, "/charges", charge(`seq-${i}`))).status);
      return statuses;
    };
    const a = await processor({ seed: 42, failureRate: 0.5 });
    const b = await processor({ seed: 42, failureRate: 0.5 });
    const c = await processor({ seed: 7, failureRate: 0.5 });
    const first = await sequence(a);

    expect(new Set(first)).toEqual(new Set([200, 503]));
    expect(await sequence(b)).toEqual(first);
    expect(await sequence(c)).not.toEqual(first);
    expect(a.stats().failuresInjected).toBe(first.filter((s) => s === 503).length);
    a.reset();
    expect(await sequence(a)).toEqual(first);
  });

  it("draws timeouts, failures and latencies deterministically per seed", () => {
    const settings = { ...DEFAULT_FAULTS, timeoutRate: 0.3, failureRate: 0.2, latencyMs: [10, 50] as const };
    const draws = (seed: number) => {
      const injector = createFaultInjector(seed);
      return Array.from({ length: 50 }, () => [injector.draw(settings), injector.latency(settings)] as const);
    };
    const first = draws(3);
    expect(draws(3)).toEqual(first);
    expect(new Set(first.map(([fault]) => fault))).toEqual(new Set(["timeout", "failure", "none"]));
    for (const [, latency] of first) expect(latency).toBeGreaterThanOrEqual(10);
    for (const [, latency] of first) expect(latency).toBeLessThanOrEqual(50);
  });

  it("PATCH /_faults changes settings at run time and rejects bad values by name", async () => {
    const upstream = await processor();
    const patched = await send(upstream, "/_faults", { failureRate: 1 }, { method: "PATCH" });
    expect(patched).toMatchObject({ status: 200, body: { failureRate: 1, timeoutRate: 0 } });
    expect((await send(upstream, "/charges", charge("ref-patched"))).status).toBe(503);
    expect((await send(upstream, "/charges", charge("ref-patched"), { fault: "none" })).status).toBe(200);

    const bad = await send(upstream, "/_faults", { timeoutRate: 2 }, { method: "PATCH" });
    expect(bad).toMatchObject({ status: 400, body: { error: { code: "invalid_faults" } } });
    expect(String((bad.body.error as { message: string }).message)).toMatch(/^timeoutRate:/);
    expect(() => upstream.setFaults({ failureRate: 0.6, timeoutRate: 0.6 })).toThrow(/at most 1/);
    expect(upstream.faults().failureRate).toBe(1);
  });

  it("stop() returns promptly with a held-back request still open", async () => {
    const upstream = await processor();
    const hanging = send(upstream, "/charges", charge("ref-hang"), { fault: "timeout" });
    hanging.catch(() => {});
    while (upstream.stats().timeoutsInjected === 0) await new Promise((resolve) => setTimeout(resolve, 10));

    const before = Date.now();
    await upstream.stop();
    expect(Date.now() - before).toBeLessThan(1000);
    await expect(hanging).rejects.toThrow();
  });
});

describe("demo carrier", () => {
  const shipment = (reference?: string) => ({
    order_id: "ord_1",
    address: "1 Main St",
    service_level: "ground",
    reference,
  });

  it("without a reference creates a new shipment on every call: two shipments for one order", async () => {
    const upstream = await carrier();
    const first = await send(upstream, "/shipments", shipment());
    const second = await send(upstream, "/shipments", shipment());
    expect(first.status).toBe(201);
    expect(String(first.body.id)).toMatch(/^shp_/);
    expect(second.body.tracking_number).not.toBe(first.body.tracking_number);

    const listed = await get(upstream, "/shipments?order_id=ord_1");
    expect((listed.body.shipments as unknown[]).length).toBe(2);
    expect(upstream.stats()).toMatchObject({ sideEffects: 2, sideEffectsWithoutReference: 2 });
  });

  it("with a reference returns the same shipment and tracking number", async () => {
    const upstream = await carrier();
    const first = await send(upstream, "/shipments", shipment("ship-ref"));
    const second = await send(upstream, "/shipments", shipment("ship-ref"));
    expect(second.status).toBe(201);
    expect(second.body.tracking_number).toBe(first.body.tracking_number);
    expect((await get(upstream, "/shipments?order_id=ord_1")).body.shipments).toHaveLength(1);
    expect(await get(upstream, "/references/ship-ref")).toEqual({
      status: 200,
      body: { status: "succeeded", receipt: first.body },
    });
    expect(upstream.stats()).toMatchObject({ sideEffects: 1, duplicatesPrevented: 1 });
  });

  it("GET /_stats over HTTP matches stats(); POST /_reset clears shipments, references and counters", async () => {
    const upstream = await carrier();
    await send(upstream, "/shipments", shipment("ship-reset"));
    expect((await get(upstream, "/_stats")).body).toEqual(upstream.stats());

    expect((await send(upstream, "/_reset", {})).status).toBe(200);
    expect(upstream.stats()).toMatchObject({ requests: { total: 0 }, sideEffects: 0, sideEffectsByReference: {} });
    expect((await get(upstream, "/references/ship-reset")).status).toBe(404);
    expect((await get(upstream, "/shipments")).body.shipments).toEqual([]);
  });
});

describe("bad requests get JSON errors", () => {
  it("400 on bad JSON, 400 naming a bad field, 404 unknown route, 405 wrong method", async () => {
    const upstream = await processor();
    const badJson = await send(upstream, "/charges", null, { raw: "{ not json" });
    expect(badJson).toMatchObject({ status: 400, body: { error: { code: "invalid_json" } } });

    const badField = await send(upstream, "/charges", { card: "c_71", amount_cents: -5 });
    expect(badField.status).toBe(400);
    expect((badField.body.error as { message: string }).message).toMatch(/^amount_cents:/);

    expect(await get(upstream, "/nowhere")).toMatchObject({ status: 404, body: { error: { code: "not_found" } } });
    const wrongMethod = await fetch(`${upstream.url}/charges`);
    expect(wrongMethod.status).toBe(405);
    expect(wrongMethod.headers.get("allow")).toBe("POST");
    expect(await wrongMethod.json()).toMatchObject({ error: { code: "method_not_allowed" } });

    const badFault = await send(upstream, "/charges", charge("ref-x"), { fault: "sometimes" as "none" });
    expect(badFault.status).toBe(400);
    expect(upstream.stats().sideEffects).toBe(0);
  });

  it("413 on an oversized body", async () => {
    const upstream = await processor();
    const huge = await send(upstream, "/charges", { ...charge("ref-huge"), padding: "x".repeat(100_000) });
    expect(huge).toMatchObject({ status: 413, body: { error: { code: "payload_too_large" } } });
  });
});

describe("reference snapshots (demo restarts)", () => {
  it("a new processor that imports a snapshot answers the old references", async () => {
    const first = await startDemoProcessor();
    const reference = "snapshot-ref-1";
    try {
      const charged = await fetch(`${first.url}/charges`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ card: "c_71", amount_cents: 1200, reference }),
      });
      expect(charged.status).toBe(200);
      const snapshot = first.exportReferences();
      expect(Object.keys(snapshot)).toEqual([reference]);
      const second = await startDemoProcessor();
      try {
        expect((await fetch(`${second.url}/references/${reference}`)).status).toBe(404);
        expect(second.importReferences(JSON.parse(JSON.stringify(snapshot)))).toBe(1);
        const answer = (await (await fetch(`${second.url}/references/${reference}`)).json()) as { status: string };
        expect(answer.status).toBe("succeeded");
      } finally {
        await second.stop();
      }
    } finally {
      await first.stop();
    }
  });
});
