import type { Figure, Kind } from "../figures";
import {
  callsTruth,
  metricsTruth,
  metricsWindow,
  stuckAtTruth,
  suppressionTruth,
  type GroupTruth,
  type MetricsTruth,
} from "../metrics-truth";
import {
  between,
  bracket,
  getJson,
  parseShownCount,
  parseShownRate,
  type PageContext,
  type SurfaceContext,
} from "../surface-context";

type Figures = Record<string, number | null | boolean | string | undefined>;
type Report = {
  from: string;
  to: string;
  stepMs: number;
  overall: Figures;
  tools: (Figures & { tool: string | null })[];
  tenants: (Figures & { tenant: string })[];
  series: (Figures & { at: string })[];
};

const COUNTS = ["executions", "completed", "stuckNow", "resolvedByOperator", "resolvedByReconciler"] as const;
const EVENTS = ["replaysServed", "inFlightRejected", "outcomeUnknown"] as const;
const PERCENTILES = ["completeP50Ms", "completeP95Ms"] as const;
/** The console's own resolution delays, checked where the API reports them. */
const RESOLVE_PERCENTILES = [
  "operatorResolveP50Ms",
  "operatorResolveP95Ms",
  "reconcilerResolveP50Ms",
  "reconcilerResolveP95Ms",
] as const;
/** What a series point may call its sample size. */
const SAMPLE_FIELDS = ["calls", "sampleSize", "attempts"];

type F = Omit<Figure, "database">;

/** One group's figures (a tool, a tenant, the whole selection) against its truth. */
function groupFigures(surface: string, label: string, shown: Figures | undefined, truth: GroupTruth): F[] {
  const figures: F[] = [];
  const value = (k: string) => (shown?.[k] === undefined ? undefined : (shown[k] as number | null));
  for (const k of COUNTS) {
    const v = value(k);
    figures.push({
      surface,
      name: `${label} ${k}`,
      shown: v ?? null,
      truth: truth[k],
      kind: "exact",
      problem: v === undefined ? `no ${k} field` : undefined,
    });
  }
  for (const k of EVENTS) {
    const v = value(k);
    // "not recorded" (null) is true only when there were no such events to count.
    figures.push({
      surface,
      name: `${label} ${k}`,
      shown: v ?? null,
      truth: v === null && truth[k] === 0 ? null : truth[k],
      kind: "exact",
      problem: v === undefined ? `no ${k} field` : undefined,
    });
  }
  const rate = value("suppressionRate");
  const rateTruth = suppressionTruth(truth);
  figures.push({
    surface,
    name: `${label} suppressionRate`,
    shown: rate ?? null,
    truth:
      rate === null && truth.replaysServed + truth.inFlightRejected === 0
        ? null
        : rateTruth === null
          ? null
          : { min: rateTruth - 1e-9, max: rateTruth + 1e-9 },
    kind: "exact",
  });
  for (const k of PERCENTILES)
    figures.push({ surface, name: `${label} ${k}`, shown: value(k) ?? null, truth: truth[k], kind: "percentile" });
  for (const k of RESOLVE_PERCENTILES)
    if (value(k) !== undefined)
      figures.push({ surface, name: `${label} ${k}`, shown: value(k) ?? null, truth: truth[k], kind: "percentile" });
  return figures;
}

/** GET /api/v1/metrics: overall, per tool (every known tool), per tenant, and the series. */
export async function metricsApi(
  ctx: SurfaceContext,
  window: "1h" | "24h" | "48h",
  who: "admin" | "acme",
  known: Map<string, { idempotentHint: boolean | null }>,
): Promise<F[]> {
  const path = `/api/v1/metrics?window=${window}`;
  const tenants = who === "acme" ? ["acme"] : null;
  const report = await getJson<Report>(ctx, path, who === "acme" ? ctx.tokens.acme : ctx.tokens.admin);
  const truth = await metricsTruth(
    ctx.truth,
    { from: new Date(report.from), to: new Date(report.to), stepMs: report.stepMs },
    { tenants, tenant: null, tool: null },
  );
  const surface = `api ${path} as ${who}`;
  const figures: F[] = groupFigures(surface, "overall", report.overall, truth.overall);

  const byTool = new Map(report.tools.map((t) => [t.tool ?? "", t]));
  const tools = new Set([
    ...byTool.keys(),
    ...[...truth.tools].filter(([, g]) => hasRows(g)).map(([t]) => t),
    ...known.keys(),
  ]);
  for (const tool of [...tools].sort()) {
    const shown = byTool.get(tool);
    const label = `tool ${tool || "(unrecorded)"}`;
    if (!shown) {
      const why = known.has(tool) ? "a known tool missing from tools[]" : "a tool with rows missing from tools[]";
      figures.push({ surface, name: `${label} listed`, shown: 0, truth: 1, kind: "exact", problem: why });
      continue;
    }
    figures.push(...groupFigures(surface, label, shown, truth.tools.get(tool) ?? emptyGroup(truth, tool)));
    const hint = known.get(tool)?.idempotentHint;
    if ("declaredIdempotentHint" in shown && hint !== undefined) {
      figures.push({
        surface,
        name: `${label} declaredIdempotentHint`,
        shown: code(shown.declaredIdempotentHint as boolean | null),
        truth: code(hint),
        kind: "exact",
      });
    }
  }
  const byTenant = new Map(report.tenants.map((t) => [t.tenant, t]));
  const tenantNames = new Set([
    ...byTenant.keys(),
    ...[...truth.tenants].filter(([, g]) => hasRows(g)).map(([t]) => t),
  ]);
  for (const tenant of [...tenantNames].sort()) {
    const shown = byTenant.get(tenant);
    if (!shown) {
      figures.push({
        surface,
        name: `tenant ${tenant} listed`,
        shown: 0,
        truth: 1,
        kind: "exact",
        problem: "a tenant with rows missing from tenants[]",
      });
      continue;
    }
    figures.push(
      ...groupFigures(surface, `tenant ${tenant}`, shown, truth.tenants.get(tenant) ?? emptyGroup(truth, "")),
    );
  }
  figures.push(...seriesFigures(surface, report, truth));
  figures.push(...(await stuckSeriesFigures(ctx, surface, report, tenants)));
  return figures;
}

/**
 * Each step's stuck-at-its-end against the definition counted here: a lower bound (atLeast), since
 * a claim its writer completed late is not found. The truth is taken just after the API answered;
 * a claim that became stuck in between can only raise it, and a lower bound may sit below.
 */
async function stuckSeriesFigures(
  ctx: SurfaceContext,
  surface: string,
  report: Report,
  tenants: string[] | null,
): Promise<F[]> {
  const ends = report.series.map((p, i) => new Date((report.series[i + 1]?.at as string | undefined) ?? report.to));
  const truths = await stuckAtTruth(ctx.truth, ends, { tenants, tenant: null, tool: null });
  return report.series.map((point, i) => ({
    surface,
    name: `step ${point.at.slice(5, 16)} stuckAtEnd`,
    shown: (point.stuckAtEnd as number | undefined) ?? null,
    truth: truths[i] ?? 0,
    kind: "atLeast",
    problem: point.stuckAtEnd === undefined ? "no stuckAtEnd field" : undefined,
  }));
}

function seriesFigures(surface: string, report: Report, truth: MetricsTruth): F[] {
  const figures: F[] = [];
  const from = new Date(report.from).getTime();
  let withoutSample = 0;
  for (const point of report.series) {
    const step = Math.round((new Date(point.at).getTime() - from) / report.stepMs);
    const t = truth.steps[step] ?? emptyGroup(truth, "");
    const label = `step ${point.at.slice(5, 16)}`;
    figures.push({
      surface,
      name: `${label} executions`,
      shown: point.executions as number,
      truth: t.executions,
      kind: "exact",
    });
    const rate = point.suppressionRate as number | null;
    const rateTruth = suppressionTruth({ ...t, recording: truth.overall.recording });
    figures.push({
      surface,
      name: `${label} suppressionRate`,
      shown: rate,
      truth:
        rate === null && t.replaysServed + t.inFlightRejected === 0
          ? null
          : rateTruth === null
            ? null
            : { min: rateTruth - 1e-9, max: rateTruth + 1e-9 },
      kind: "exact",
    });
    const sampleField = SAMPLE_FIELDS.find((f) => f in point);
    if (sampleField)
      figures.push({
        surface,
        name: `${label} ${sampleField}`,
        shown: point[sampleField] as number,
        truth: callsTruth(t),
        kind: "exact",
      });
    else if (rate !== null) withoutSample += 1;
  }
  if (withoutSample > 0)
    figures.push({
      surface,
      name: "series sample sizes",
      shown: 0,
      truth: withoutSample,
      kind: "exact",
      problem: `${withoutSample} points show a rate without its sample size (calls)`,
    });
  return figures;
}

function hasRows(g: GroupTruth): boolean {
  return (
    g.executions +
      g.completed +
      g.replaysServed +
      g.inFlightRejected +
      g.outcomeUnknown +
      g.stuckNow +
      g.resolvedByOperator +
      g.resolvedByReconciler >
    0
  );
}

function emptyGroup(truth: MetricsTruth, tool: string): GroupTruth {
  return {
    executions: 0,
    executionsOfRecordingTools: 0,
    completed: 0,
    replaysServed: 0,
    inFlightRejected: 0,
    outcomeUnknown: 0,
    resolvedByOperator: 0,
    resolvedByReconciler: 0,
    stuckNow: 0,
    recording: truth.recordingTools.has(tool),
    completeP50Ms: null,
    completeP95Ms: null,
    operatorResolveP50Ms: null,
    operatorResolveP95Ms: null,
    reconcilerResolveP50Ms: null,
    reconcilerResolveP95Ms: null,
  };
}

function code(hint: boolean | null): number | null {
  return hint === null ? null : hint ? 1 : 0;
}

/** The metrics page's per-tool and per-tenant tables, cells read by their column headers. */
export async function metricsPage(
  ctx: PageContext,
  window: "1h" | "24h" | "48h",
  known: Map<string, unknown>,
): Promise<F[]> {
  const path = `/metrics?window=${window}`;
  const { shown, before, after } = await bracket(
    async () => {
      await ctx.page.goto(`${ctx.baseUrl}${path}`);
      await ctx.page.waitForSelector('[data-testid="risk-table-tool"]');
      const table = (id: string) =>
        ctx.page.locator(`[data-testid="${id}"]`).evaluate((t) => {
          const headers = [...t.querySelectorAll("thead th")].map((th) => (th.textContent ?? "").trim().toLowerCase());
          return [...t.querySelectorAll("tbody tr")].map((tr) => {
            // A cell spanning several columns ("not recorded" over the event columns) stands in each of them.
            // A note beside a figure (what a verify run's upstream counted) is not the figure.
            const figureText = (td: HTMLTableCellElement) => {
              const copy = td.cloneNode(true) as HTMLElement;
              for (const note of copy.querySelectorAll('[data-testid="verified-upstream"]')) note.remove();
              return (copy.textContent ?? "").trim();
            };
            const cells = [...tr.querySelectorAll<HTMLTableCellElement>("td")].flatMap((td) =>
              Array<string>(td.colSpan || 1).fill(figureText(td)),
            );
            return {
              id: tr.getAttribute("data-row") ?? cells[0] ?? "",
              cells: Object.fromEntries(headers.map((h, i) => [h, cells[i]])),
            };
          });
        });
      return {
        tools: await table("risk-table-tool"),
        tenants:
          (await ctx.page.locator('[data-testid="risk-table-tenant"]').count()) > 0
            ? await table("risk-table-tenant")
            : [],
      };
    },
    (now) => metricsTruth(ctx.truth, metricsWindow(window, now), { tenants: null, tenant: null, tool: null }),
  );
  const figures: F[] = [];
  const columns: [string, keyof GroupTruth, Kind][] = [
    ["executions", "executions", "exact"],
    ["completed", "completed", "exact"],
    ["stuck now", "stuckNow", "exact"],
    ["replays", "replaysServed", "exact"],
    ["rejected", "inFlightRejected", "exact"],
    ["unknown", "outcomeUnknown", "exact"],
  ];
  const rows = (list: typeof shown.tools, kind: "tool" | "tenant") => {
    const surface = `page ${path} ${kind}s`;
    const listed = new Set<string>();
    for (const row of list) {
      const key = kind === "tool" && row.id === "(unrecorded)" ? "" : row.id;
      listed.add(key);
      const b = (kind === "tool" ? before.tools : before.tenants).get(key);
      const a = (kind === "tool" ? after.tools : after.tenants).get(key);
      for (const [header, field, k] of columns) {
        const text = row.cells[header];
        if (text === undefined) continue;
        const value = parseShownCount(text).value;
        const tb = (b?.[field] as number | undefined) ?? 0;
        const ta = (a?.[field] as number | undefined) ?? 0;
        figures.push({
          surface,
          name: `${kind} ${row.id} ${header}`,
          shown: value,
          truth: value === null && tb === 0 && ta === 0 ? null : between(tb, ta),
          kind: k,
        });
      }
      const rateText = row.cells["suppression"];
      if (rateText !== undefined) {
        const rate = parseShownRate(rateText);
        const [rb, ra] = [b ? suppressionTruth(b) : null, a ? suppressionTruth(a) : null];
        const truth = between(rb, ra);
        figures.push({
          surface,
          name: `${kind} ${row.id} suppression`,
          shown: rate,
          truth:
            truth === null || (rate === null && (a?.replaysServed ?? 0) + (a?.inFlightRejected ?? 0) === 0)
              ? null
              : spread(truth, 0.0005),
          kind: "exact",
        });
      }
    }
    return listed;
  };
  const listedTools = rows(shown.tools, "tool");
  rows(shown.tenants, "tenant");
  for (const tool of known.keys()) {
    if (!listedTools.has(tool))
      figures.push({
        surface: `page ${path} tools`,
        name: `tool ${tool} listed`,
        shown: 0,
        truth: 1,
        kind: "exact",
        problem: "a known tool missing from the table",
      });
  }
  for (const [tool, g] of after.tools) {
    if (!listedTools.has(tool) && !known.has(tool) && hasRows(g))
      figures.push({
        surface: `page ${path} tools`,
        name: `tool ${tool || "(unrecorded)"} listed`,
        shown: 0,
        truth: 1,
        kind: "exact",
        problem: "a tool with rows missing from the table",
      });
  }
  return figures;
}

function spread(truth: number | { min: number; max: number }, by: number): { min: number; max: number } {
  const r = typeof truth === "number" ? { min: truth, max: truth } : truth;
  return { min: r.min - by, max: r.max + by };
}
