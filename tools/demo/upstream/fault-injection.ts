import { HttpError } from "./json-http";
import type { FaultSettings } from "./upstream-types";

export type Fault = "timeout" | "failure" | "none";

/** Forces the fault for one request, so tests need not depend on rates. */
export const FAULT_HEADER = "x-demo-fault";

/** Sets one POST's processing time (ms), overriding `latencyMs`, e.g. to widen one in-flight window. */
export const LATENCY_HEADER = "x-demo-latency-ms";

/**
 * Demo: the caller's simulated now (ISO), so a receipt replayed into 48 h of history carries the
 * time of the charge, not the wall clock of the seeding run.
 */
export const AT_HEADER = "x-demo-at";

export const DEFAULT_FAULTS: FaultSettings = { latencyMs: 0, timeoutRate: 0, failureRate: 0, hangMs: 35_000 };

/** mulberry32: tiny, fast and good enough to make a demo's bad days repeatable. */
function seededRandom(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  };
}

/**
 * Draws faults and latencies from two separate seeded streams, so changing the latency does not
 * shift which requests fail.
 */
export function createFaultInjector(seed: number) {
  let faultRandom = seededRandom(seed);
  let latencyRandom = seededRandom(seed ^ 0x9e3779b9);
  return {
    draw(settings: FaultSettings): Fault {
      const r = faultRandom();
      if (r < settings.failureRate) return "failure";
      if (r < settings.failureRate + settings.timeoutRate) return "timeout";
      return "none";
    },
    latency(settings: FaultSettings): number {
      const { latencyMs } = settings;
      if (typeof latencyMs === "number") return latencyMs;
      const [min, max] = latencyMs;
      return Math.round(min + latencyRandom() * (max - min));
    },
    reseed(): void {
      faultRandom = seededRandom(seed);
      latencyRandom = seededRandom(seed ^ 0x9e3779b9);
    },
  };
}

export type FaultInjector = ReturnType<typeof createFaultInjector>;

/** Reads `x-demo-fault`; undefined when absent. */
export function forcedFault(header: string | string[] | undefined): Fault | undefined {
  if (header === undefined) return undefined;
  const value = Array.isArray(header) ? header[0] : header;
  if (value === "timeout" || value === "failure" || value === "none") return value;
  throw new HttpError(400, "invalid_fault", `${FAULT_HEADER}: expected timeout, failure or none`);
}

/** Reads `x-demo-latency-ms`; undefined when absent. */
export function forcedLatency(header: string | string[] | undefined): number | undefined {
  if (header === undefined) return undefined;
  const value = Number(Array.isArray(header) ? header[0] : header);
  if (!Number.isInteger(value) || value < 0 || value > 600_000) {
    throw new HttpError(400, "invalid_latency", `${LATENCY_HEADER}: expected whole milliseconds from 0 to 600000`);
  }
  return value;
}

/** Reads `x-demo-at`; the wall clock when absent. */
export function requestTime(header: string | string[] | undefined): Date {
  if (header === undefined) return new Date();
  const text = Array.isArray(header) ? header[0] : header;
  const at = new Date(text ?? "");
  if (Number.isNaN(at.getTime())) throw new HttpError(400, "invalid_at", `${AT_HEADER}: expected an ISO 8601 time`);
  return at;
}

function invalid(field: string, expected: string): never {
  throw new HttpError(400, "invalid_faults", `${field}: expected ${expected}`);
}

function isDelay(value: unknown): value is number {
  return typeof value === "number" && Number.isFinite(value) && value >= 0 && value <= 600_000;
}

function rate(value: unknown, field: string): number {
  if (typeof value !== "number" || !(value >= 0 && value <= 1)) invalid(field, "a number from 0 to 1");
  return value;
}

/** Applies a partial update to `base`, rejecting unknown fields and bad values by name. */
export function mergeFaultSettings(base: FaultSettings, partial: unknown): FaultSettings {
  if (typeof partial !== "object" || partial === null || Array.isArray(partial)) invalid("faults", "an object");
  const input = partial as Record<string, unknown>;
  const next: FaultSettings = { ...base };
  for (const [field, value] of Object.entries(input)) {
    if (value === undefined) continue;
    switch (field) {
      case "latencyMs":
        if (isDelay(value)) next.latencyMs = value;
        else if (
          Array.isArray(value) &&
          value.length === 2 &&
          isDelay(value[0]) &&
          isDelay(value[1]) &&
          value[0] <= value[1]
        ) {
          next.latencyMs = [value[0], value[1]];
        } else invalid(field, "milliseconds or [min, max] milliseconds");
        break;
      case "timeoutRate":
        next.timeoutRate = rate(value, field);
        break;
      case "failureRate":
        next.failureRate = rate(value, field);
        break;
      case "hangMs":
        if (!isDelay(value)) invalid(field, "milliseconds from 0 to 600000");
        next.hangMs = value;
        break;
      default:
        invalid(field, "one of latencyMs, timeoutRate, failureRate, hangMs");
    }
  }
  if (next.timeoutRate + next.failureRate > 1) invalid("timeoutRate + failureRate", "at most 1");
  return next;
}
