/**
 * One figure the console shows, beside the truth counted independently in SQL, and the rule it
 * is held to:
 * - exact: equal to the truth;
 * - atLeast: a lower bound ("500+", atLeast: true): never above the truth, and labelled;
 * - estimate: a planner estimate ("≈", estimate: true): within 2× of the truth, and labelled;
 * - percentile: a latency from the log-bucket histogram: within its stated error (2^(1/8) − 1 ≈ 9.05 %,
 *   plus 1 ms for the rounding to whole milliseconds) of the nearest-rank percentile.
 * A truth that depends on the instant (stuck claims age, windows slide) is computed before and after the
 * console was read: a range, and the figure must lie within it (or, for a percentile, near one end).
 */
export type Kind = "exact" | "atLeast" | "estimate" | "percentile";

export type Truth = number | null | { min: number; max: number };

export type Figure = {
  database: string;
  /** Where it was read: "api /api/v1/records?tool=x" or "page /records". */
  surface: string;
  name: string;
  shown: number | null;
  truth: Truth;
  kind: Kind;
  /** A problem the extractor saw beside the number (no "≈" on an estimate, a missing field, a missing tool). */
  problem?: string;
};

export type Checked = Figure & { ok: boolean; why: string | null };

/** 2^(1/8) − 1: the histogram's largest relative error (lib/metrics/latency-histogram.ts). */
export const HISTOGRAM_ERROR = 2 ** (1 / 8) - 1;

function range(truth: Truth): { min: number; max: number } | null {
  if (truth === null) return null;
  return typeof truth === "number" ? { min: truth, max: truth } : truth;
}

export function truthText(truth: Truth): string {
  const r = range(truth);
  if (r === null) return "null";
  return r.min === r.max ? fmt(r.min) : `${fmt(r.min)}..${fmt(r.max)}`;
}

function fmt(n: number): string {
  return Number.isInteger(n) ? String(n) : n.toPrecision(6);
}

export function check(figure: Figure): Checked {
  const why = violation(figure);
  return { ...figure, ok: why === null, why };
}

function violation(f: Figure): string | null {
  const wrong = numberViolation(f);
  if (wrong && f.problem) return `${wrong}; ${f.problem}`;
  return wrong ?? f.problem ?? null;
}

function numberViolation(f: Figure): string | null {
  const r = range(f.truth);
  if (r === null || f.shown === null) {
    return (r === null) === (f.shown === null)
      ? null
      : `shown ${f.shown === null ? "nothing" : fmt(f.shown)}, truth ${truthText(f.truth)}`;
  }
  const shown = f.shown;
  switch (f.kind) {
    case "exact":
      return shown >= r.min - 1e-9 && shown <= r.max + 1e-9
        ? null
        : `exact ${fmt(shown)} ≠ truth ${truthText(f.truth)} (off by ${fmt(shown - (shown < r.min ? r.min : r.max))})`;
    case "atLeast":
      return shown <= r.max ? null : `lower bound ${fmt(shown)} exceeds the truth ${truthText(f.truth)}`;
    case "estimate": {
      // The planner never estimates fewer than one row: an estimate of 1 for an empty set is the closest it can be.
      const low = r.min / 2;
      const high = Math.max(2 * r.max, 1);
      return shown >= low && shown <= high
        ? null
        : `estimate ${fmt(shown)} is not within 2× of the truth ${truthText(f.truth)} (×${fmt(r.max === 0 ? Infinity : shown / r.max)})`;
    }
    case "percentile": {
      const low = r.min * (1 - HISTOGRAM_ERROR) - 1;
      const high = r.max * (1 + HISTOGRAM_ERROR) + 1;
      return shown >= low && shown <= high
        ? null
        : `percentile ${fmt(shown)} ms is not within ±9.05 % of the truth ${truthText(f.truth)} ms (×${fmt(shown / Math.max(r.max, 1))})`;
    }
  }
}

/** The compact table the test prints and writes: figure, shown, truth, kind, ok. */
export function figureTable(checked: Checked[]): string {
  const rows = checked.map((c) => [
    c.database,
    c.surface,
    c.name,
    c.shown === null ? "—" : fmt(c.shown),
    truthText(c.truth),
    c.kind,
    c.ok ? "ok" : `FAIL: ${c.why}`,
  ]);
  const header = ["database", "surface", "figure", "shown", "truth", "kind", "ok"];
  const widths = header.map((h, i) =>
    Math.min(60, Math.max(h.length, ...rows.map((r) => (i === 6 ? 2 : (r[i] ?? "").length)))),
  );
  const line = (cells: string[]) =>
    cells.map((cell, i) => (i === cells.length - 1 ? cell : cell.padEnd(widths[i] ?? 0))).join("  ");
  return [line(header), ...rows.map(line)].join("\n");
}

/** Collects the figures of one database, surface by surface. */
export class FigureBook {
  readonly checked: Checked[] = [];
  constructor(readonly database: string) {}

  add(figures: Omit<Figure, "database">[]): Checked[] {
    const now = figures.map((f) => check({ ...f, database: this.database }));
    this.checked.push(...now);
    return now;
  }

  failures(surfacePrefix?: string): string[] {
    return this.checked
      .filter((c) => !c.ok && (surfacePrefix === undefined || c.surface.startsWith(surfacePrefix)))
      .map((c) => `${c.surface} · ${c.name}: ${c.why}`);
  }
}
