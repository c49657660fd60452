import type { Figure } from "../figures";
import { getJson, parseShownCount, type PageContext, type SurfaceContext } from "../surface-context";

/** The tools audit: each tool's evidence over the window, and the summary of the verdicts. */
type Evidence = Record<string, number | string | null>;
type Audit = {
  since: string;
  generatedAt: string;
  scannedThrough: string | null;
  tools: { server: string | null; name: string; evidence: Evidence; verdict: string; verdictLabel: string }[];
};
type F = Omit<Figure, "database">;

type EvidenceTruth = {
  records: number;
  completed: number;
  inProgress: number;
  replays: number;
  rejections: number;
  outcomeUnknown: number;
  stuck: number;
  unresolvedOutcomeUnknown: number;
  lastSeen: number | null;
};

/**
 * Per tool name, over [since, now]: claims made (with claims released since, from their audit
 * snapshots), completions, claims still in flight, the writers' events, stuck claims of any age,
 * open claims with an outcome_unknown event, and the newest row.
 */
async function evidenceTruth(
  ctx: SurfaceContext,
  since: Date,
  now: Date,
  tools: string[],
): Promise<Map<string, EvidenceTruth>> {
  const rows = await ctx.truth.query<{ tool: string; measure: string; n: string | null }>(
    `
    WITH names AS (SELECT unnest($3::text[]) AS tool)
    SELECT tool, 'records' AS measure, count(*)::text AS n FROM idempotency WHERE created_at >= $1 AND created_at <= $2 AND tool = ANY($3) GROUP BY tool
    UNION ALL SELECT before->>'tool', 'records', count(*)::text FROM audit_log
      WHERE action IN ('record.release', 'record.force_release') AND (before->>'createdAt')::timestamptz >= $1 AND (before->>'createdAt')::timestamptz <= $2 AND before->>'tool' = ANY($3) GROUP BY 1
    UNION ALL SELECT tool, 'completed', count(*)::text FROM idempotency
      WHERE status = 'completed' AND COALESCE(updated_at, created_at) >= $1 AND COALESCE(updated_at, created_at) <= $2 AND tool = ANY($3) GROUP BY tool
    UNION ALL SELECT tool, 'inProgress', count(*)::text FROM idempotency WHERE status = 'in_progress' AND created_at >= $1 AND created_at <= $2 AND tool = ANY($3) GROUP BY tool
    UNION ALL SELECT tool, CASE kind WHEN 'replay_served' THEN 'replays' WHEN 'in_flight_rejected' THEN 'rejections' WHEN 'outcome_unknown' THEN 'outcomeUnknown' ELSE kind END, count(*)::text
      FROM idempotency_event WHERE at >= $1 AND at <= $2 AND tool = ANY($3) GROUP BY tool, kind
    UNION ALL SELECT tool, 'stuck', count(*)::text FROM idempotency WHERE ${ctx.truth.stuckSql("$2", "$4")} AND tool = ANY($3) GROUP BY tool
    UNION ALL SELECT i.tool, 'unresolvedOutcomeUnknown', count(*)::text FROM idempotency i
      WHERE i.status = 'in_progress' AND i.tool = ANY($3)
        AND EXISTS (SELECT 1 FROM idempotency_event e WHERE e.key = i.key AND e.kind = 'outcome_unknown' AND e.at >= $1 AND e.at <= $2) GROUP BY i.tool
    UNION ALL SELECT n.tool, 'lastSeen', (SELECT floor(extract(epoch FROM max(created_at)) * 1000)::bigint::text FROM idempotency i WHERE i.tool = n.tool) FROM names n`,
    [since.toISOString(), now.toISOString(), tools, JSON.stringify(ctx.truth.thresholds.byTool)],
  );
  const truth = new Map<string, EvidenceTruth>(
    tools.map((t) => [
      t,
      {
        records: 0,
        completed: 0,
        inProgress: 0,
        replays: 0,
        rejections: 0,
        outcomeUnknown: 0,
        stuck: 0,
        unresolvedOutcomeUnknown: 0,
        lastSeen: null,
      },
    ]),
  );
  for (const r of rows) {
    const t = truth.get(r.tool);
    if (!t || r.n === null) continue;
    (t as Record<string, number | null>)[r.measure] =
      ((t as Record<string, number | null>)[r.measure] ?? 0) + Number(r.n);
  }
  return truth;
}

const BANDS = ["at_once", "seconds", "around_timeout", "minutes", "near_window_end"] as const;
type ScanTruth = {
  duplicatesThrough: number | null;
  argumentsMismatches: number | null;
  bands: Record<(typeof BANDS)[number], number> | null;
};

/**
 * What the duplicate scan should have counted in [since, through), written here from the reference's
 * rules: a second claim of one operation (tenant, subject, tool, arguments hash) less than its tool's
 * window after an earlier one (business-key tools never); arguments_mismatch events; and each repeat
 * event's delay after its row's created_at (a released row's from its audit snapshot), by band.
 */
async function scanTruth(
  ctx: SurfaceContext,
  since: Date,
  through: Date,
  tools: string[],
): Promise<Map<string, ScanTruth>> {
  const { windowsS, businessKeyTools } = ctx.truth.thresholds;
  const windowOf = `COALESCE(($4::jsonb ->> b.tool)::float8, 900)`;
  const rows = await ctx.truth.query<{ tool: string; measure: string; n: string }>(
    `
    SELECT b.tool, 'duplicates' AS measure, count(*)::text AS n FROM idempotency b
     WHERE b.created_at >= $1 AND b.created_at < $2 AND b.tool = ANY($3) AND b.arguments_sha256 IS NOT NULL
       AND NOT (b.tool = ANY($5)) AND EXISTS (
         SELECT 1 FROM idempotency a WHERE a.tenant = b.tenant AND a.subject IS NOT DISTINCT FROM b.subject AND a.tool = b.tool
           AND a.arguments_sha256 = b.arguments_sha256 AND a.created_at > b.created_at - make_interval(secs => ${windowOf})
           AND (a.created_at, a.key) < (b.created_at, b.key))
     GROUP BY b.tool
    UNION ALL SELECT tool, 'hashed', count(*)::text FROM idempotency
     WHERE created_at >= $1 AND created_at < $2 AND tool = ANY($3) AND arguments_sha256 IS NOT NULL GROUP BY tool
    UNION ALL SELECT tool, 'mismatches', count(*)::text FROM idempotency_event
     WHERE kind = 'arguments_mismatch' AND at >= $1 AND at < $2 AND tool = ANY($3) GROUP BY tool
    UNION ALL SELECT tool, band, count(*)::text FROM (
      SELECT e.tool,
             CASE WHEN d < 1000 THEN 'at_once' WHEN d < 20000 THEN 'seconds' WHEN d < 90000 THEN 'around_timeout'
                  WHEN e.tool = ANY($5) OR d < 0.8 * 1000 * COALESCE(($4::jsonb ->> e.tool)::float8, 900) THEN 'minutes'
                  ELSE 'near_window_end' END AS band
      FROM (
        SELECT e.tool, GREATEST(0, extract(epoch FROM e.at - COALESCE(r.created_at, (
                 SELECT (a.before ->> 'createdAt')::timestamptz FROM audit_log a
                  WHERE a.key = e.key AND a.action IN ('record.release', 'record.force_release') ORDER BY a.at DESC LIMIT 1))) * 1000) AS d
        FROM idempotency_event e LEFT JOIN idempotency r ON r.key = e.key
        WHERE e.kind IN ('replay_served', 'in_flight_rejected') AND e.at >= $1 AND e.at < $2 AND e.tool = ANY($3)
      ) e WHERE d IS NOT NULL
    ) banded GROUP BY tool, band`,
    [since.toISOString(), through.toISOString(), tools, JSON.stringify(windowsS), businessKeyTools],
  );
  const counts = new Map<string, Record<string, number>>();
  for (const r of rows) {
    const c = counts.get(r.tool) ?? {};
    c[r.measure] = (c[r.measure] ?? 0) + Number(r.n);
    counts.set(r.tool, c);
  }
  return new Map(
    tools.map((tool) => {
      const c = counts.get(tool) ?? {};
      const recorded = (c.hashed ?? 0) + (c.duplicates ?? 0) + (c.mismatches ?? 0) > 0;
      const repeats = BANDS.reduce((sum, b) => sum + (c[b] ?? 0), 0);
      return [
        tool,
        {
          duplicatesThrough: recorded ? (c.duplicates ?? 0) : null,
          argumentsMismatches: recorded ? (c.mismatches ?? 0) : null,
          bands: repeats === 0 ? null : (Object.fromEntries(BANDS.map((b) => [b, c[b] ?? 0])) as ScanTruth["bands"]),
        },
      ];
    }),
  );
}

/**
 * The scan's figures of one tool as the API shows them, beside their truth through the watermark the
 * audit gives (null shown and null truth: "not recorded"). Exact: the figures and the watermark are
 * read in one snapshot (lib/scan/scan-snapshot.ts).
 */
function scanFigures(surface: string, tool: Audit["tools"][number], t: ScanTruth): F[] {
  const evidence = tool.evidence as unknown as {
    duplicatesThrough?: number | null;
    argumentsMismatches?: number | null;
    repeatDelays?: { bands: Record<string, number> } | null;
  };
  const figures: F[] = [
    {
      surface,
      name: `${tool.name} duplicatesThrough`,
      shown: evidence.duplicatesThrough ?? null,
      truth: t.duplicatesThrough,
      kind: "exact",
      problem: evidence.duplicatesThrough === undefined ? "no duplicatesThrough field" : undefined,
    },
    {
      surface,
      name: `${tool.name} argumentsMismatches`,
      shown: evidence.argumentsMismatches ?? null,
      truth: t.argumentsMismatches,
      kind: "exact",
    },
  ];
  for (const band of BANDS)
    figures.push({
      surface,
      name: `${tool.name} repeats ${band}`,
      shown: evidence.repeatDelays ? (evidence.repeatDelays.bands[band] ?? null) : null,
      truth: t.bands ? t.bands[band] : null,
      kind: "exact",
    });
  return figures;
}

const caughtUp = (audit: Audit) =>
  audit.scannedThrough !== null && Date.parse(audit.generatedAt) - Date.parse(audit.scannedThrough) < 600_000;

const EVIDENCE_FIELDS = [
  "records",
  "completed",
  "inProgress",
  "replays",
  "rejections",
  "outcomeUnknown",
  "stuck",
  "unresolvedOutcomeUnknown",
] as const;

export async function toolsAuditApi(ctx: SurfaceContext, window: "24h" | "48h" | "7d"): Promise<F[]> {
  const path = `/api/v1/tools/audit?window=${window}`;
  // The duplicate scan reads the seeded history in the console's background rounds: wait until it has
  // caught up (its watermark within 10 min of now), so its figures are held to the truth over the day.
  let audit = await getJson<Audit>(ctx, path);
  for (let waited = 0; !caughtUp(audit) && waited < 120_000; waited += 2_000) {
    await new Promise((resolve) => setTimeout(resolve, 2_000));
    audit = await getJson<Audit>(ctx, path);
  }
  const truth = await evidenceTruth(
    ctx,
    new Date(audit.since),
    new Date(audit.generatedAt),
    audit.tools.map((t) => t.name),
  );
  const surface = `api ${path}`;
  // The scan's figures count what it has read: through its watermark (the audit says where).
  const names = audit.tools.map((t) => t.name);
  const scan =
    audit.scannedThrough === null
      ? null
      : await scanTruth(ctx, new Date(audit.since), new Date(audit.scannedThrough), names);
  const span = { "24h": 24, "48h": 48, "7d": 168 }[window] * 3_600_000;
  // `since` is the UTC hour holding generatedAt − window: the window is whole hours.
  const figures: F[] = [
    {
      surface,
      name: "since (epoch ms)",
      shown: Date.parse(audit.since),
      truth: Math.floor((Date.parse(audit.generatedAt) - span) / 3_600_000) * 3_600_000,
      kind: "exact",
    },
    {
      surface,
      name: "the duplicate scan has caught up (its watermark within 10 min of now)",
      shown: caughtUp(audit) ? 1 : 0,
      truth: 1,
      kind: "exact",
    },
  ];
  for (const tool of audit.tools) {
    const t = truth.get(tool.name)!;
    for (const field of EVIDENCE_FIELDS) {
      const shown = tool.evidence[field];
      figures.push({
        surface,
        name: `${tool.name} ${field}`,
        shown: typeof shown === "number" ? shown : null,
        truth: t[field],
        kind: "exact",
        problem: shown === undefined ? `no ${field} field` : undefined,
      });
    }
    if (scan) figures.push(...scanFigures(surface, tool, scan.get(tool.name)!));
    // ISO times carry whole milliseconds: the truth is floored to them too.
    const lastSeen = tool.evidence.lastSeen;
    figures.push({
      surface,
      name: `${tool.name} lastSeen (epoch ms)`,
      shown: typeof lastSeen === "string" ? new Date(lastSeen).getTime() : null,
      truth: t.lastSeen,
      kind: "exact",
    });
  }
  return figures;
}

/**
 * The tools page: each row's evidence figures, and the summary line — its counts must be exactly the
 * verdicts of the rows below it, each summary word the word on those rows' badges.
 */
export async function toolsAuditPage(ctx: PageContext, window: "24h" | "48h" | "7d"): Promise<F[]> {
  const path = `/tools?window=${window}`;
  const before = new Date();
  await ctx.page.goto(`${ctx.baseUrl}${path}`);
  await ctx.page.waitForSelector('[data-testid="tool-audit-table"], [data-testid="no-tools"]');
  const summary = (await ctx.page.locator('[data-testid="verdict-counts"]').textContent()) ?? "";
  const rows = await ctx.page.locator('[data-testid="tool-audit-table"] tbody tr[data-tool]').evaluateAll((trs) =>
    trs.map((tr) => ({
      tool: tr.getAttribute("data-tool") ?? "",
      label: (tr.querySelector("span[data-verdict]")?.textContent ?? "").trim(),
      figures: Object.fromEntries(
        [...tr.querySelectorAll("dd[data-figure]")].map((dd) => [
          dd.getAttribute("data-figure") ?? "",
          dd.textContent ?? "",
        ]),
      ),
    })),
  );
  const after = new Date();
  const surface = `page ${path}`;
  const figures: F[] = [];
  // The page's window is [the UTC hour holding now − window, now] at its render: between the two instants.
  const span = { "24h": 24, "48h": 48, "7d": 168 }[window] * 3_600_000;
  const hourOf = (t: Date) => new Date(Math.floor((t.getTime() - span) / 3_600_000) * 3_600_000);
  const names = [...new Set(rows.map((r) => r.tool))];
  const [early, late] = await Promise.all([
    evidenceTruth(ctx, hourOf(before), before, names),
    evidenceTruth(ctx, hourOf(after), after, names),
  ]);
  const labels: Record<string, keyof EvidenceTruth> = {
    records: "records",
    replays: "replays",
    rejections: "rejections",
    "outcome unknown": "outcomeUnknown",
    stuck: "stuck",
  };
  for (const row of rows) {
    for (const [label, text] of Object.entries(row.figures)) {
      const field = labels[label];
      if (!field) continue;
      const a = early.get(row.tool)?.[field] as number;
      const b = late.get(row.tool)?.[field] as number;
      figures.push({
        surface,
        name: `${row.tool} ${label}`,
        shown: parseShownCount(text).value,
        truth: a === b ? a : { min: Math.min(a, b), max: Math.max(a, b) },
        kind: "exact",
      });
    }
  }
  const parts = summary
    .split("·")
    .map((part) => /^\s*(\d[\d,]*)\s+(.+?)\s*$/.exec(part))
    .flatMap((m) => (m ? [{ n: Number((m[1] ?? "").replace(/,/g, "")), word: m[2] ?? "" }] : []));
  const total = parts.reduce((sum, p) => sum + p.n, 0);
  figures.push({ surface, name: "summary: verdicts counted", shown: total, truth: rows.length, kind: "exact" });
  for (const { n, word } of parts) {
    const w = word.toLowerCase();
    const matching = rows.filter((r) => {
      const label = r.label.toLowerCase();
      return label === w || label.startsWith(`${w} `) || label.startsWith(`${w};`) || label.startsWith(`${w},`);
    }).length;
    figures.push({ surface, name: `summary "${word}"`, shown: n, truth: matching, kind: "exact" });
  }
  return figures;
}
