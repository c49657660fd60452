import type { Figure } from "../figures";
import { between, bracket, parseShownCount, type PageContext } from "../surface-context";
import { UNRECORDED } from "../truth-sql";

/** The stuck page: the total and the per-tool cards (configured tools appear with 0). */
export async function stuckPage(ctx: PageContext, tenant: string | null): Promise<Omit<Figure, "database">[]> {
  const path = `/stuck${tenant ? `?tenant=${encodeURIComponent(tenant)}` : ""}`;
  const { shown, before, after } = await bracket(
    async () => {
      await ctx.page.goto(`${ctx.baseUrl}${path}`);
      await ctx.page.waitForSelector(
        '[data-testid="stuck-tool-counts"], [data-testid="stuck-empty"], [data-testid="stuck-summary"]',
      );
      const total =
        (await ctx.page.locator('[data-testid="stuck-total"]').count()) > 0
          ? await ctx.page.locator('[data-testid="stuck-total"]').textContent()
          : null;
      const cards = await ctx.page.locator('[data-testid="stuck-tool-counts"] a[data-tool]').evaluateAll((links) =>
        links.map((a) => ({
          tool: a.getAttribute("data-tool") ?? "",
          count: a.querySelector('[data-testid="stuck-tool-count"]')?.textContent ?? "",
        })),
      );
      const empty = (await ctx.page.locator('[data-testid="stuck-empty"]').count()) > 0;
      return { total, cards, empty };
    },
    (now) => ctx.truth.countBy("tool", { tenant, stuck: true }, now),
  );
  const surface = `page ${path}`;
  const sum = (m: Map<string | null, number>) => [...m.values()].reduce((a, b) => a + b, 0);
  const figures: Omit<Figure, "database">[] = [];
  const total = shown.total === null ? (shown.empty ? 0 : null) : parseShownCount(shown.total).value;
  figures.push({ surface, name: "total", shown: total, truth: between(sum(before), sum(after)), kind: "exact" });
  const carded = new Set<string | null>();
  for (const card of shown.cards) {
    const tool = card.tool === UNRECORDED ? null : card.tool;
    carded.add(tool);
    figures.push({
      surface,
      name: `tool ${card.tool}`,
      shown: parseShownCount(card.count).value,
      truth: between(before.get(tool) ?? 0, after.get(tool) ?? 0),
      kind: "exact",
    });
  }
  for (const [tool, n] of after) {
    if (!carded.has(tool) && n > 0)
      figures.push({
        surface,
        name: `tool ${tool ?? UNRECORDED}`,
        shown: null,
        truth: n,
        kind: "exact",
        problem: `no card for ${tool ?? UNRECORDED} (${n} stuck)`,
      });
  }
  return figures;
}
