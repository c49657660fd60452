/** How figures read on the page. null never becomes 0: it says why there is no number. */
export const NOT_RECORDED = "not recorded";
export const NOT_REPORTED = "not reported";

export function formatCount(value: number | null, missing = NOT_RECORDED): string {
  return value === null ? missing : value.toLocaleString("en");
}

export function formatRate(value: number | null, missing = NOT_RECORDED): string {
  if (value === null) return missing;
  return `${(value * 100).toFixed(value > 0 && value < 0.001 ? 3 : 1)}%`;
}

export function formatMs(value: number | null): string {
  if (value === null) return "—";
  if (value < 1_000) return `${value} ms`;
  if (value < 60_000) return `${(value / 1_000).toFixed(value < 10_000 ? 2 : 1)} s`;
  if (value < 3_600_000) return `${(value / 60_000).toFixed(1)} min`;
  return `${(value / 3_600_000).toFixed(1)} h`;
}

export function formatRatio(value: number | null): string {
  return value === null ? NOT_REPORTED : value.toFixed(value === Math.round(value) ? 2 : 3);
}

/** "14:05" in UTC: the console's times are UTC everywhere. */
export function formatStep(iso: string, stepMs: number): string {
  const date = new Date(iso);
  const time = date.toISOString().slice(11, 16);
  return stepMs >= 3_600_000 && time === "00:00" ? date.toISOString().slice(5, 10) : time;
}
