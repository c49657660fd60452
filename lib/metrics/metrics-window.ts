import type { MetricsWindow } from "./metrics-params";

export const MINUTE_MS = 60_000;
export const HOUR_MS = 3_600_000;

export function floorTo(date: Date, stepMs: number): Date {
  return new Date(Math.floor(date.getTime() / stepMs) * stepMs);
}

export type WindowBounds = {
  window: MetricsWindow;
  /** Start of the first step (inclusive). */
  from: Date;
  /** The request's instant (exclusive): the last step is the current, partial one. */
  to: Date;
  stepMs: number;
  steps: number;
};

const SHAPES: Record<MetricsWindow, { steps: number; stepMs: number }> = {
  "1h": { steps: 12, stepMs: 5 * MINUTE_MS },
  "24h": { steps: 24, stepMs: HOUR_MS },
  "48h": { steps: 48, stepMs: HOUR_MS },
};

/**
 * A window is its whole steps ending with the current, partial one: "24h" at 14:20 is 15:00
 * yesterday up to 14:20 now, in 24 hourly steps — so every closed step is one rollup hour, and
 * only the last is open. "1h" is twelve 5-minute steps, read from minute slices (window-figures.ts).
 */
export function windowBounds(window: MetricsWindow, now: Date): WindowBounds {
  const { steps, stepMs } = SHAPES[window];
  const from = new Date(floorTo(now, stepMs).getTime() - (steps - 1) * stepMs);
  return { window, from, to: now, stepMs, steps };
}

/** The start of every step in the window, oldest first (the last one is empty when `to` falls on a step boundary). */
export function windowSteps(bounds: WindowBounds): Date[] {
  return Array.from({ length: bounds.steps }, (_, i) => new Date(bounds.from.getTime() + i * bounds.stepMs));
}
