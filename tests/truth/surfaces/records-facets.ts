import type { Figure, Kind, Truth } from "../figures";
import { between, bracket, getJson, parseShownCount, type PageContext, type SurfaceContext } from "../surface-context";
import { UNRECORDED, type RowFilter } from "../truth-sql";

/** The records list's facets: per status and per tool, each facet ignoring its own dimension. */
type Entry = { value: string | null; count: number; estimate: boolean; atLeast: boolean; basis?: unknown };
type Facet = { entries: Entry[]; note: string | null };
type Listing = { facets: { status: Facet; tool: Facet } };

export type FacetFilter = { tenant?: string; tool?: string; status?: string; stuck?: boolean };

const BASIS_FIELDS = ["filterRows", "share", "tableRows", "analyzedAt", "modifiedSinceAnalyze"] as const;

export function recordsQuery(filter: FacetFilter): string {
  const params = new URLSearchParams();
  if (filter.tenant) params.set("tenant", filter.tenant);
  if (filter.tool) params.set("tool", filter.tool);
  if (filter.status) params.set("status", filter.status);
  if (filter.stuck) params.set("stuck", "true");
  const text = params.toString();
  return text ? `?${text}` : "";
}

type FacetTruth = { status: Map<string | null, number>; tool: Map<string | null, number> };

async function facetTruth(
  ctx: SurfaceContext,
  filter: FacetFilter,
  tenants: string[] | null,
  now: Date,
): Promise<FacetTruth> {
  const base: RowFilter = {
    tenants,
    tenant: filter.tenant ?? null,
    tool: filter.tool ?? null,
    status: filter.status ?? null,
    stuck: filter.stuck ?? false,
  };
  const [status, tool] = await Promise.all([
    ctx.truth.countBy("status", { ...base, status: null }, now),
    ctx.truth.countBy("tool", { ...base, tool: null }, now),
  ]);
  return { status, tool };
}

type ShownEntry = { value: string | null; count: number; estimate: boolean; atLeast: boolean; problem?: string };

/** The facet's figures against the truth, the labels each kind needs, and values that should have a chip. */
function facetFigures(
  surface: string,
  column: "status" | "tool",
  entries: ShownEntry[],
  hasNote: boolean,
  before: Map<string | null, number>,
  after: Map<string | null, number>,
): Omit<Figure, "database">[] {
  const figures: Omit<Figure, "database">[] = [];
  for (const e of entries) {
    const kind: Kind = e.estimate ? "estimate" : e.atLeast ? "atLeast" : "exact";
    const truth: Truth = between(before.get(e.value) ?? 0, after.get(e.value) ?? 0);
    figures.push({
      surface,
      name: `${column}=${e.value ?? UNRECORDED}`,
      shown: e.count,
      truth,
      kind,
      problem: e.problem,
    });
  }
  const listed = new Set(entries.map((e) => e.value));
  const withRows = [...after].filter(([, n]) => n > 0);
  if (entries.length === 0 && withRows.length > 0) {
    figures.push({
      surface,
      name: `${column} chips`,
      shown: 0,
      truth: withRows.length,
      kind: "exact",
      problem: `no ${column} chips, although ${withRows.length} values have rows`,
    });
    return figures;
  }
  // Exact facets list every value with rows; a facet of estimates or lower bounds says in its note that some may be missing.
  const allExact = entries.every((e) => !e.estimate && !e.atLeast);
  for (const [value, n] of withRows) {
    if (listed.has(value) || (!allExact && hasNote)) continue;
    figures.push({
      surface,
      name: `${column}=${value ?? UNRECORDED}`,
      shown: null,
      truth: between(before.get(value) ?? 0, n),
      kind: "exact",
      problem: `no chip for ${value ?? UNRECORDED} (${n} rows)`,
    });
  }
  return figures;
}

function basisProblem(e: Entry): string | undefined {
  if (!("basis" in e)) return "the entry has no basis field";
  if (!e.estimate) return e.basis === null ? undefined : "an exact count or lower bound carries a basis";
  const basis = e.basis as Record<string, unknown> | null;
  if (basis === null || typeof basis !== "object") return "an estimate without its basis";
  const missing = BASIS_FIELDS.filter((f) => basis[f] === undefined || basis[f] === null);
  return missing.length > 0 ? `the estimate's basis lacks ${missing.join(", ")}` : undefined;
}

/** GET /api/v1/records for each filter, as the admin and as a viewer limited to acme. */
export async function recordsFacetsApi(
  ctx: SurfaceContext,
  filters: FacetFilter[],
): Promise<Omit<Figure, "database">[]> {
  const figures: Omit<Figure, "database">[] = [];
  const actors = [
    { label: "admin", token: ctx.tokens.admin, tenants: null },
    { label: "acme", token: ctx.tokens.acme, tenants: ["acme"] },
  ];
  for (const actor of actors) {
    for (const filter of filters) {
      if (actor.tenants && filter.tenant && !actor.tenants.includes(filter.tenant)) continue;
      const path = `/api/v1/records${recordsQuery(filter)}`;
      const { shown, before, after } = await bracket(
        () => getJson<Listing>(ctx, path, actor.token),
        (now) => facetTruth(ctx, filter, actor.tenants, now),
      );
      for (const column of ["status", "tool"] as const) {
        const facet = shown.facets[column];
        const surface = `api ${path} as ${actor.label}`;
        figures.push(
          ...facetFigures(surface, column, facet.entries, facet.note !== null, before[column], after[column]),
        );
        // Every entry says what its count was made from: basis null (exact, lower bound) or the estimate's figures.
        const problems = facet.entries.flatMap((e) => {
          const problem = basisProblem(e);
          return problem ? [`${e.value ?? UNRECORDED}: ${problem}`] : [];
        });
        if (facet.entries.length > 0) {
          figures.push({
            surface,
            name: `${column} entries with their basis`,
            shown: facet.entries.length - problems.length,
            truth: facet.entries.length,
            kind: "exact",
            problem: problems.length > 0 ? problems.join("; ") : undefined,
          });
        }
      }
    }
  }
  return figures;
}

/** The chips on the records page: "completed ≈ 13,283", "in_progress 500+", "charge_card 1,204". */
export async function recordsFacetsPage(ctx: PageContext, filter: FacetFilter): Promise<Omit<Figure, "database">[]> {
  const path = `/records${recordsQuery(filter)}`;
  const { shown, before, after } = await bracket(
    async () => {
      await ctx.page.goto(`${ctx.baseUrl}${path}`);
      await ctx.page.waitForSelector('[data-testid="facets"]');
      const read = (row: string) =>
        ctx.page.locator(`[data-testid="facet-${row}"] a`).evaluateAll((links) =>
          links.map((a) => {
            const spans = a.querySelectorAll(":scope > span");
            return { name: spans[0]?.textContent ?? "", count: spans[1]?.textContent ?? "" };
          }),
        );
      // The facet's note follows the chips in parentheses (or stands alone when there are none).
      const noted = async (row: string) =>
        /\(|not listed|estimate|lower bound/.test(
          (await ctx.page.locator(`[data-testid="facet-${row}"]`).textContent()) ?? "",
        );
      return {
        status: await read("status"),
        tool: await read("tool"),
        statusNote: await noted("status"),
        toolNote: await noted("tool"),
      };
    },
    (now) => facetTruth(ctx, filter, null, now),
  );
  const figures: Omit<Figure, "database">[] = [];
  for (const column of ["status", "tool"] as const) {
    const entries = shown[column].map((chip): ShownEntry => {
      const count = parseShownCount(chip.count);
      const value = column === "tool" && chip.name === "unrecorded" ? null : chip.name;
      return { value, count: count.value ?? 0, estimate: count.estimate, atLeast: count.atLeast };
    });
    figures.push(
      ...facetFigures(
        `page ${path}`,
        column,
        entries,
        column === "status" ? shown.statusNote : shown.toolNote,
        before[column],
        after[column],
      ),
    );
  }
  return figures;
}
