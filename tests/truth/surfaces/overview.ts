import type { Figure } from "../figures";
import { metricsTruth, metricsWindow, suppressionTruth } from "../metrics-truth";
import { between, bracket, parseShownCount, parseShownRate, type PageContext } from "../surface-context";

/**
 * The overview page: records (exact, or "≈" an estimate), in progress, stuck, and the 24 h headline
 * figures. `tenants`: the signed-in user's tenants (null: all).
 */
export async function overviewPage(
  ctx: PageContext,
  tenants: string[] | null,
  who: string,
): Promise<Omit<Figure, "database">[]> {
  const scope = { tenants };
  const { shown, before, after } = await bracket(
    async () => {
      await ctx.page.goto(`${ctx.baseUrl}/`);
      await ctx.page.waitForSelector('[data-testid="overview-records"]');
      const text = async (id: string) =>
        (await ctx.page.locator(`[data-testid="${id}"]`).count()) > 0
          ? await ctx.page.locator(`[data-testid="${id}"]`).first().textContent()
          : null;
      const headline = async (id: string) =>
        (await ctx.page.locator(`[data-testid="headline-${id}"] dd`).count()) > 0
          ? await ctx.page.locator(`[data-testid="headline-${id}"] dd`).first().textContent()
          : null;
      return {
        records: await text("overview-records"),
        inProgress: await text("overview-in-progress"),
        stuck: await text("overview-stuck"),
        executions: await headline("executions"),
        replays: await headline("replays"),
        rejections: await headline("rejections"),
        unknown: await headline("outcome-unknown"),
        stuckNow: await headline("stuck"),
        rate: await headline("suppression-rate"),
      };
    },
    async (now) => ({
      records: await ctx.truth.count(scope, now),
      inProgress: await ctx.truth.count({ ...scope, status: "in_progress" }, now),
      stuck: await ctx.truth.count({ ...scope, stuck: true }, now),
      metrics: (await metricsTruth(ctx.truth, metricsWindow("24h", now), { tenants, tenant: null, tool: null }))
        .overall,
    }),
  );
  const surface = `page / as ${who}`;
  const records = parseShownCount(shown.records);
  const figures: Omit<Figure, "database">[] = [
    {
      surface,
      name: "records",
      shown: records.value,
      truth: between(before.records, after.records),
      kind: records.estimate ? "estimate" : records.atLeast ? "atLeast" : "exact",
    },
    {
      surface,
      name: "in progress",
      shown: parseShownCount(shown.inProgress).value,
      truth: between(before.inProgress, after.inProgress),
      kind: "exact",
    },
    {
      surface,
      name: "stuck",
      shown: parseShownCount(shown.stuck).value,
      truth: between(before.stuck, after.stuck),
      kind: "exact",
    },
  ];
  if (shown.executions !== null) {
    const count = (name: string, text: string | null, b: number, a: number) => {
      const value = parseShownCount(text).value;
      // "not recorded" is true only where nothing was recorded.
      figures.push({
        surface,
        name: `24h ${name}`,
        shown: value,
        truth: value === null && a === 0 && b === 0 ? null : between(b, a),
        kind: "exact",
      });
    };
    count("executions", shown.executions, before.metrics.executions, after.metrics.executions);
    count("replays served", shown.replays, before.metrics.replaysServed, after.metrics.replaysServed);
    count("in-flight rejections", shown.rejections, before.metrics.inFlightRejected, after.metrics.inFlightRejected);
    count("outcome unknown", shown.unknown, before.metrics.outcomeUnknown, after.metrics.outcomeUnknown);
    count("stuck now", shown.stuckNow, before.metrics.stuckNow, after.metrics.stuckNow);
    const rate = parseShownRate(shown.rate);
    const [rb, ra] = [suppressionTruth(before.metrics), suppressionTruth(after.metrics)];
    // Shown to one decimal of a percent: within half of 0.1 %.
    const truth = between(rb, ra);
    figures.push({
      surface,
      name: "24h suppression rate",
      shown: rate,
      truth: truth === null ? null : widen(truth, 0.0005),
      kind: "exact",
    });
  }
  return figures;
}

export function widen(truth: number | { min: number; max: number }, by: number): { min: number; max: number } {
  const r = typeof truth === "number" ? { min: truth, max: truth } : truth;
  return { min: r.min - by, max: r.max + by };
}
