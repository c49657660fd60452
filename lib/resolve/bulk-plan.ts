import "server-only";
import pLimit from "p-limit";
import { z } from "zod";
import { auditReasonSchema } from "@/lib/field-rules/audit-reason";
import type { Actor } from "@/lib/identity/actor";
import type { IdemConfig } from "@/lib/config/schema";
import type { Db } from "@/lib/db/prisma";
import { refOf } from "idem-guard";
import { recordsConditions, whereClause } from "@/lib/records/list-records";
import { isStuck } from "@/lib/records/stuck-threshold";
import { stuckRecordsFilter, type StuckFilter } from "@/lib/records/stuck-claims";
import { CLAIM_COLUMNS, isRowVersion, readVisibleClaims, type VisibleClaim } from "@/lib/records/visible-records";
import { stuckFilterInputSchema } from "@/lib/records/stuck-filter-input";
import { askProcessor } from "./ask-processor";
import { BULK_PLAN_MAX_ROWS } from "./bulk-limits";
import { isNobodyToAsk } from "./nobody-to-ask";
import type { ProcessorCheck, ProcessorOutcome } from "./processor-check-types";
import { applyResolution, decideResolution, type ResolveAction } from "./resolution";

export { BULK_PLAN_MAX_ROWS };
/** Rows per apply request: small, so the page can show progress between batches and a failure costs one batch. */
export const BULK_APPLY_MAX_ROWS = 50;
/** Processor questions in flight at once, per plan or apply request. */
export const BULK_CHECK_CONCURRENCY = 6;

const KEY_TEXT = /^[\x21-\x7e]{1,255}$/;
export const claimKeyField = z
  .string()
  .trim()
  .regex(KEY_TEXT, "a key is 64 hex characters (at most 255 printable characters for other writers)")
  // Writers' keys are lowercase hexdigests; the URL and the table agree on that spelling.
  .transform((key) => (/^[0-9a-fA-F]{64}$/.test(key) ? key.toLowerCase() : key));

export const bulkPlanInputSchema = z.union([
  z.strictObject({
    keys: z
      .array(claimKeyField)
      .min(1, "select at least one claim")
      .max(BULK_PLAN_MAX_ROWS, `at most ${BULK_PLAN_MAX_ROWS} keys per plan`),
  }),
  z.strictObject({ filter: stuckFilterInputSchema }),
]);
export type BulkPlanInput = z.infer<typeof bulkPlanInputSchema>;

export const bulkApplyInputSchema = z.strictObject({
  reason: auditReasonSchema,
  rows: z
    .array(
      z.strictObject({
        key: claimKeyField,
        action: z.enum(["complete", "release"]),
        expectedUpdatedAt: z
          .string()
          .refine(isRowVersion, "expected the version the plan saw (updated_at with microseconds) or null")
          .nullable(),
      }),
    )
    .min(1, "no rows to apply")
    .max(BULK_APPLY_MAX_ROWS, `at most ${BULK_APPLY_MAX_ROWS} rows per request: send the plan in batches`),
});
export type BulkApplyInput = z.infer<typeof bulkApplyInputSchema>;

export type ProposedAction = ResolveAction | "leave";

export type PlannedRow = {
  key: string;
  ref: string;
  tenant: string | null;
  tool: string | null;
  createdAt: string | null;
  ageMs: number | null;
  /** The row's status when planned (null: no such record). */
  status: string | null;
  /** The version the plan saw: apply sends it back as the compare-and-set's expected version. */
  expectedUpdatedAt: string | null;
  /** null: the processor was not asked (the row is absent, resolved or not stuck). */
  outcome: ProcessorOutcome | null;
  /** Why this proposal: the processor's answer, or what kept the row out of the plan. */
  reason: string;
  /**
   * True when there was nobody to ask (no processor configured for the tool, or no tool recorded):
   * asking again cannot help, only configuration or a forced release can.
   */
  nobodyToAsk: boolean;
  proposed: ProposedAction;
  checkMs: number | null;
};

export type BulkPlan = {
  plannedAt: string;
  /** What the plan covers, in words ("3 selected claims", "stuck claims of tenant acme"). */
  scope: string;
  rows: PlannedRow[];
  totals: Record<ProposedAction, number>;
  /** More stuck claims matched the filter than a plan takes; the oldest BULK_PLAN_MAX_ROWS are planned. */
  truncated: boolean;
  /** Stuck claims the filter matched (a filter plan; null for selected keys), however many were planned. */
  matched: number | null;
};

export type BulkRowResult = {
  key: string;
  ref: string;
  action: ResolveAction;
  /**
   * ok: applied, with its audit row. conflict: the row changed since the plan (nothing overwritten).
   * changed_outcome: the processor now answers differently than at planning time (nothing changed).
   * error: the row could not be resolved (database error, not stuck, not allowed).
   */
  result: "ok" | "conflict" | "changed_outcome" | "error";
  message: string;
  outcome: ProcessorOutcome | null;
  auditId?: string;
  /** The row as it is now, for a conflict (null: it no longer exists). */
  current?: { status: string; version: string | null } | null;
};

export type BulkApplyResult = {
  appliedAt: string;
  results: BulkRowResult[];
  totals: Record<BulkRowResult["result"], number>;
};

/**
 * A dry run over selected claims or every stuck claim matching a filter: asks each row's
 * processor (bounded concurrency) and proposes what `decideResolution` would allow — complete
 * what was taken, release what was not, leave what is unknown. Changes nothing, writes no audit.
 * Only stuck claims are proposed for action: a younger in_progress row may be a live call.
 */
export async function planBulkResolution(
  db: Db,
  config: IdemConfig,
  actor: Actor,
  input: BulkPlanInput,
  now = new Date(),
): Promise<BulkPlan> {
  let candidates: (VisibleClaim | { key: string; missing: true })[];
  let truncated = false;
  let matched: number | null = null;
  let scope: string;
  if ("keys" in input) {
    const keys = [...new Set(input.keys)];
    const found = await readVisibleClaims(db, actor, keys);
    // Oldest first, as every stuck list and the filter plan order them; keys not found go last.
    candidates = keys
      .map((key) => found.get(key) ?? { key, missing: true as const })
      .sort((a, b) => createdMs(a) - createdMs(b));
    scope = `${keys.length} selected claim${keys.length === 1 ? "" : "s"}`;
  } else {
    const filter: StuckFilter = { tenant: input.filter.tenant ?? null, tool: input.filter.tool ?? null };
    const conditions = recordsConditions(actor, stuckRecordsFilter(filter), config, now);
    // Oldest first: those are the claims most overdue; one more than the bound tells "truncated".
    const rows = await db.$queryRaw<VisibleClaim[]>`
      SELECT ${CLAIM_COLUMNS} FROM idempotency ${whereClause(conditions)}
      ORDER BY created_at, key LIMIT ${BULK_PLAN_MAX_ROWS + 1}`;
    truncated = rows.length > BULK_PLAN_MAX_ROWS;
    candidates = rows.slice(0, BULK_PLAN_MAX_ROWS);
    matched = truncated ? await countStuck(db, conditions) : rows.length;
    const words = [
      filter.tenant !== null ? `tenant ${filter.tenant}` : null,
      filter.tool !== null ? `tool ${filter.tool}` : null,
    ].filter(Boolean);
    const of = words.length > 0 ? ` of ${words.join(", ")}` : "";
    scope = truncated
      ? `the ${BULK_PLAN_MAX_ROWS} oldest of the ${matched.toLocaleString("en")} stuck claims${of} (a plan takes at most ${BULK_PLAN_MAX_ROWS})`
      : `every stuck claim${of}`;
  }

  const rows = await pLimit(BULK_CHECK_CONCURRENCY).map(candidates, (candidate) =>
    planRow(config, actor, candidate, now),
  );
  const totals: Record<ProposedAction, number> = { complete: 0, release: 0, leave: 0 };
  for (const row of rows) totals[row.proposed] += 1;
  return { plannedAt: now.toISOString(), scope, rows, totals, truncated, matched };
}

function createdMs(candidate: VisibleClaim | { missing: true }): number {
  return "missing" in candidate ? Number.POSITIVE_INFINITY : candidate.created_at.getTime();
}

/** Exact: a plan over more than its bound says how many it left out. One scan of the partial index. */
async function countStuck(db: Db, conditions: Parameters<typeof whereClause>[0]): Promise<number> {
  const [row] = await db.$queryRaw<{ n: bigint }[]>`SELECT count(*) AS n FROM idempotency ${whereClause(conditions)}`;
  return Number(row?.n ?? 0);
}

async function planRow(
  config: IdemConfig,
  actor: Actor,
  candidate: VisibleClaim | { key: string; missing: true },
  now: Date,
): Promise<PlannedRow> {
  if ("missing" in candidate) {
    return {
      key: candidate.key,
      ref: refOf(candidate.key),
      tenant: null,
      tool: null,
      createdAt: null,
      ageMs: null,
      status: null,
      expectedUpdatedAt: null,
      outcome: null,
      reason: "no such record (resolved and released meanwhile, or not one of your tenants)",
      nobodyToAsk: false,
      proposed: "leave",
      checkMs: null,
    };
  }
  const base = {
    key: candidate.key,
    ref: refOf(candidate.key),
    tenant: candidate.tenant,
    tool: candidate.tool,
    createdAt: candidate.created_at.toISOString(),
    ageMs: Math.max(0, now.getTime() - candidate.created_at.getTime()),
    status: candidate.status,
    expectedUpdatedAt: candidate.version,
    nobodyToAsk: false,
  };
  if (candidate.status !== "in_progress")
    return {
      ...base,
      outcome: null,
      reason: `already ${candidate.status}: nothing to resolve`,
      proposed: "leave",
      checkMs: null,
    };
  if (!isStuck(config, { status: candidate.status, tool: candidate.tool, createdAt: candidate.created_at }, now)) {
    return {
      ...base,
      outcome: null,
      reason: "not stuck yet: within its tool's threshold a live call may still be running",
      proposed: "leave",
      checkMs: null,
    };
  }
  const check = await askProcessor(config, { key: candidate.key, tool: candidate.tool });
  const asked = { ...base, outcome: check.outcome, checkMs: check.evidence.ms, nobodyToAsk: isNobodyToAsk(check) };
  if (check.outcome === "unknown") return { ...asked, reason: check.reason, proposed: "leave" };
  const decision = decideResolution(actor, check.outcome === "taken" ? "complete" : "release", check, false);
  if (!decision.ok) return { ...asked, reason: decision.message, proposed: "leave" };
  return { ...asked, reason: check.reason, proposed: decision.action };
}

const EXPECTED_OUTCOME: Record<ResolveAction, ProcessorOutcome> = { complete: "taken", release: "not_taken" };

/**
 * Applies planned rows: each is re-checked against its processor (the plan's answer may be
 * stale) and resolved only when the answer still supports the planned action, as a
 * compare-and-set on the version the plan saw, in one transaction with its audit row. Every
 * row gets its own result; one failing row never stops the others.
 */
/**
 * Who the audit rows name as having resolved: an operator's bulk apply ("bulk: <reason>"), or the
 * reconciler run over keys ("reconciler: <reason>", the prefix the metrics count as the reconciler's).
 */
export type BulkOrigin = "bulk" | "reconciler";
const REASON_PREFIX: Record<BulkOrigin, string> = { bulk: "bulk: ", reconciler: "reconciler: " };

export async function applyBulkResolution(
  db: Db,
  config: IdemConfig,
  actor: Actor,
  input: BulkApplyInput,
  now = new Date(),
  origin: BulkOrigin = "bulk",
): Promise<BulkApplyResult> {
  const planned = dedupeByKey(input.rows);
  const claims = await readVisibleClaims(
    db,
    actor,
    planned.map((row) => row.key),
  );
  const results = await pLimit(BULK_CHECK_CONCURRENCY).map(planned, async (row): Promise<BulkRowResult> => {
    const base = { key: row.key, ref: refOf(row.key), action: row.action };
    try {
      return {
        ...base,
        ...(await applyRow(
          db,
          config,
          actor,
          row,
          claims.get(row.key),
          `${REASON_PREFIX[origin]}${input.reason}`,
          now,
        )),
      };
    } catch (error) {
      // The transaction rolled back: the row is as it was. Say so and go on with the others.
      return {
        ...base,
        result: "error",
        outcome: null,
        message: `not resolved, nothing changed: ${errorMessage(error)}`,
      };
    }
  });
  const totals: Record<BulkRowResult["result"], number> = { ok: 0, conflict: 0, changed_outcome: 0, error: 0 };
  for (const result of results) totals[result.result] += 1;
  return { appliedAt: now.toISOString(), results, totals };
}

type RowOutcome = Omit<BulkRowResult, "key" | "ref" | "action">;

async function applyRow(
  db: Db,
  config: IdemConfig,
  actor: Actor,
  row: BulkApplyInput["rows"][number],
  claim: VisibleClaim | undefined,
  reason: string,
  now: Date,
): Promise<RowOutcome> {
  const changed =
    "Changed since the plan (a writer, another operator or the reconciler acted): nothing was overwritten.";
  if (!claim)
    return { result: "conflict", outcome: null, message: `${changed} The record no longer exists.`, current: null };
  const current = { status: claim.status, version: claim.version };
  // Cheap early answer; the compare-and-set below is what actually guarantees it.
  if (claim.status !== "in_progress" || claim.version !== row.expectedUpdatedAt) {
    return { result: "conflict", outcome: null, message: `${changed} It is now ${claim.status}.`, current };
  }
  if (!isStuck(config, { status: claim.status, tool: claim.tool, createdAt: claim.created_at }, now)) {
    return {
      result: "error",
      outcome: null,
      message: "Not stuck: within its tool's threshold a live call may still be running. Nothing was changed.",
    };
  }
  const check: ProcessorCheck = await askProcessor(config, { key: claim.key, tool: claim.tool });
  if (check.outcome !== EXPECTED_OUTCOME[row.action]) {
    return {
      result: "changed_outcome",
      outcome: check.outcome,
      message: `The processor now answers ${check.outcome.replace("_", " ")} (${check.reason}), not ${EXPECTED_OUTCOME[row.action].replace("_", " ")} as planned. Nothing was changed; plan again.`,
    };
  }
  const decision = decideResolution(actor, row.action, check, false);
  if (!decision.ok) return { result: "error", outcome: check.outcome, message: decision.message };
  const applied = await db.$transaction((tx) =>
    applyResolution(tx, actor, { key: claim.key, expectedVersion: row.expectedUpdatedAt, decision, reason, check }),
  );
  if (!applied.ok) {
    return {
      result: "conflict",
      outcome: check.outcome,
      message: `${changed}${applied.current ? ` It is now ${applied.current.status}.` : " The record no longer exists."}`,
      current: applied.current ? { status: applied.current.status, version: applied.current.version } : null,
    };
  }
  return {
    result: "ok",
    outcome: check.outcome,
    message:
      decision.action === "complete"
        ? "Completed with the processor's receipt."
        : "Released: the row is deleted, its snapshot is in the audit log.",
    auditId: applied.auditId.toString(),
  };
}

/** One request may name a key once: a second entry would only conflict with the first. */
function dedupeByKey<T extends { key: string }>(rows: T[]): T[] {
  const seen = new Set<string>();
  return rows.filter((row) => (seen.has(row.key) ? false : (seen.add(row.key), true)));
}

function errorMessage(error: unknown): string {
  const text = error instanceof Error ? error.message : String(error);
  return (
    text
      .split("\n")
      .map((line) => line.trim())
      .filter(Boolean)
      .slice(-1)[0] ?? text
  );
}
