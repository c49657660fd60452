import { z } from "zod";
import { BODY_ERRORS, defineContract } from "@/lib/api/contract";
import { API_ROUTES } from "@/lib/api/routes";
import { domainQuery } from "@/lib/api/strict-query";
import { AUDIT_QUERY_FIELDS, DEFAULT_AUDIT_PAGE_SIZE, parseAuditQuery } from "@/lib/audit/list-audit";
import { DEFAULT_METRICS_WINDOW, METRICS_QUERY_FIELDS, parseMetricsQuery } from "@/lib/metrics/metrics-params";
import { bulkApplyInputSchema, bulkPlanInputSchema } from "@/lib/resolve/bulk-plan";
import { nextStuckWithinField } from "@/lib/records/stuck-filter-input";
import { reconcileInputSchema } from "@/lib/resolve/reconcile-input";
import { instant, nextStuckClaim, nullableString, processorOutcome } from "./shared-schemas";

export const meContract = defineContract({
  ...API_ROUTES.me,
  tag: "session",
  summary: "Who the caller is, as the console sees them: useful to check a token.",
  action: "records:read",
  responses: {
    200: {
      description: "The caller.",
      schema: z.object({
        kind: z.enum(["user", "token", "system"]),
        name: z.string(),
        role: z.enum(["viewer", "operator", "admin"]),
        tenants: z.array(z.string()),
      }),
    },
  },
  errors: [],
  examples: [{ name: "who am I", status: 200 }],
});

export const auditListContract = defineContract({
  ...API_ROUTES.auditList,
  tag: "audit",
  summary: "One page of the audit log, newest first.",
  action: "audit:read",
  query: domainQuery(AUDIT_QUERY_FIELDS, (params) => parseAuditQuery(params, { unknownParams: "reject" }), {
    described: {
      id: "One entry by its id (what a confirmation links to).",
      actor: "The start of the actor label: `system:` for every job, an e-mail for one person.",
      action: "One action exactly, e.g. record.release.",
      key: "A whole key or the start of one (a 12-hex ref).",
      tenant: "One tenant's entries only; still limited to your tenants.",
      from: "At or after this instant: a date or a date-time with a zone.",
      to: "Before this instant: a date or a date-time with a zone.",
      cursor: "The previous page's nextCursor: the page after it.",
      limit: `Entries per page (default ${DEFAULT_AUDIT_PAGE_SIZE}).`,
    },
  }),
  responses: {
    200: {
      description: "The entries; before, after and evidence masked.",
      schema: z.object({
        entries: z.array(
          z.object({
            id: z.string(),
            at: instant,
            actor: z.string(),
            actorRole: z.string(),
            action: z.string(),
            key: nullableString,
            ref: nullableString,
            recordExists: z.boolean(),
            tenant: nullableString,
            reason: nullableString,
            before: z.unknown(),
            after: z.unknown(),
            evidence: z.unknown(),
            redactedPaths: z.array(z.string()),
            about: z
              .object({ label: z.string(), href: nullableString })
              .nullable()
              .describe(
                'What the entry is about when it is not one record ("shop / create_shipment: failed at table", "token ci (viewer)"), read from its masked fields; null when nothing.',
              ),
            hash: z
              .string()
              .describe(
                "sha256 hex over the entry's stored content and the previous entry's hash: its link in the audit chain (docs/audit-chain.md).",
              ),
          }),
        ),
        nextCursor: nullableString,
        generatedAt: instant,
      }),
    },
  },
  errors: ["unknown_tenant"],
  examples: [
    { name: "a page", query: [["limit", "25"]], status: 200 },
    { name: "a bad limit", query: [["limit", "7"]], status: 400 },
    { name: "a tenant nobody has", query: [["tenant", "nobody-has-this"]], status: 404 },
  ],
});

export const metricsContract = defineContract({
  ...API_ROUTES.metrics,
  tag: "metrics",
  summary: "Duplicate-suppression figures, per tool and tenant, and their series.",
  action: "metrics:read",
  query: domainQuery(METRICS_QUERY_FIELDS, (params) => parseMetricsQuery(params, { unknownParams: "reject" }), {
    described: {
      window: `How far back the figures go, ending now (default ${DEFAULT_METRICS_WINDOW}).`,
      tool: "One tool's figures (exact name); `(unrecorded)` for writers that record no tool.",
      tenant: "One tenant's figures only; still limited to your tenants.",
    },
  }),
  responses: {
    200: {
      description: "The figures of the window.",
      schema: z.object({
        window: z.enum(["1h", "24h", "48h"]),
        from: instant,
        to: instant,
        stepMs: z.number(),
        filter: z.object({ tool: nullableString, tenant: nullableString }),
        overall: z.looseObject({}),
        tools: z.array(z.looseObject({})),
        tenants: z.array(z.looseObject({})),
        series: z.array(z.looseObject({})),
        repeats: z
          .looseObject({
            since: instant.describe("The start of the hour holding `from`: the scan counts whole event hours."),
            scannedThrough: instant.nullable().describe("Events before this are counted. Null: the scan never ran."),
            byTool: z
              .array(z.looseObject({ tool: z.string(), repeats: z.number().int() }))
              .describe(
                "Per tool: repeats (replays served, in-flight rejections) by delay band after the first call, per host (byClient) and its busiest tenants (topTenants).",
              ),
            byClient: z
              .array(z.looseObject({ client: z.string().nullable(), repeats: z.number().int() }))
              .describe("Per calling host over every tool, most repeats first; client null: not recorded."),
          })
          .describe("Where repeats come from (docs/architecture.md#where-repeats-come-from)."),
        source: z.looseObject({ hoursRolledUpNow: z.number(), minutesRolledUpNow: z.number() }),
      }),
    },
  },
  errors: ["unknown_tenant"],
  examples: [
    { name: "the last hour", query: [["window", "1h"]], status: 200 },
    { name: "a window it does not have", query: [["window", "2h"]], status: 400 },
  ],
});

const plannedRow = z.object({
  key: z.string(),
  ref: z.string(),
  tenant: nullableString,
  tool: nullableString,
  createdAt: instant.nullable(),
  ageMs: z.number().nullable(),
  status: nullableString,
  expectedUpdatedAt: nullableString,
  outcome: processorOutcome.nullable(),
  reason: z.string(),
  nobodyToAsk: z
    .boolean()
    .describe(
      "No processor could be asked (none configured for the tool, or no tool recorded): asking again cannot help; configure one, or force a release on the record.",
    ),
  proposed: z.enum(["complete", "release", "leave"]),
  checkMs: z.number().nullable(),
});

export const bulkPlanContract = defineContract({
  ...API_ROUTES.bulkPlan,
  tag: "resolve",
  summary: "A dry-run plan: per claim the processor's outcome and the proposed action. Changes nothing.",
  action: "records:resolve",
  body: bulkPlanInputSchema,
  responses: {
    200: {
      description: "The plan.",
      schema: z.object({
        plannedAt: instant,
        scope: z.string(),
        rows: z.array(plannedRow),
        totals: z.object({ complete: z.number(), release: z.number(), leave: z.number() }),
        truncated: z.boolean(),
        matched: z
          .number()
          .nullable()
          .describe("Stuck claims the filter matched, exact (a plan covers the oldest 500); null for selected keys."),
      }),
    },
  },
  errors: [...BODY_ERRORS, "unknown_tenant"],
  examples: [
    { name: "a plan of one claim", body: { keys: ["{key}"] }, status: 200 },
    { name: "neither keys nor a filter", body: {}, status: 400 },
    { name: "a tenant nobody has", body: { filter: { tenant: "nobody-has-this" } }, status: 404 },
  ],
});

export const bulkApplyContract = defineContract({
  ...API_ROUTES.bulkApply,
  tag: "resolve",
  summary:
    "Applies a plan (at most 50 rows a request): each row's fate in its own result; 200 whenever the request was sound.",
  action: "records:resolve",
  body: bulkApplyInputSchema.extend({ nextStuckWithin: nextStuckWithinField }),
  responses: {
    200: {
      description: "Each row's result, and the totals.",
      schema: z.object({
        appliedAt: instant,
        results: z.array(
          z
            .object({
              key: z.string(),
              ref: z.string(),
              action: z.enum(["complete", "release"]),
              result: z.enum(["ok", "conflict", "changed_outcome", "error"]),
              message: z.string(),
              outcome: processorOutcome.nullable(),
              auditId: z.string().optional(),
              current: z.object({ status: z.string(), version: nullableString }).nullable().optional(),
            })
            .loose(),
        ),
        totals: z.object({ ok: z.number(), conflict: z.number(), changed_outcome: z.number(), error: z.number() }),
        nextStuck: nextStuckClaim,
      }),
    },
  },
  errors: [...BODY_ERRORS],
  examples: [
    {
      name: "apply one row",
      body: { reason: "contract test", rows: [{ key: "{key}", action: "complete", expectedUpdatedAt: null }] },
      status: 200,
    },
    { name: "no reason", body: { rows: [] }, status: 400 },
  ],
});

export const reconcileContract = defineContract({
  ...API_ROUTES.reconcile,
  tag: "resolve",
  summary:
    "The reconciler: a sweep of stuck claims (oldest first, at most 500), or exactly the named keys, each resolved only if stuck.",
  action: "reconcile:run",
  body: reconcileInputSchema,
  responses: {
    200: {
      description: "Per row the processor's outcome and what was (or, dry, would be) done.",
      schema: z.object({
        dryRun: z.boolean(),
        startedAt: instant,
        durationMs: z.number(),
        criteria: z.object({
          olderThanMs: z.number().nullable(),
          olderThan: z.string(),
          tool: nullableString,
          tenant: nullableString,
          limit: z.number(),
          concurrency: z.number(),
        }),
        candidates: z.number(),
        rows: z.array(
          z.looseObject({
            key: z.string(),
            ref: z.string(),
            outcome: processorOutcome,
            action: z.enum(["completed", "released", "left", "conflict"]),
            reason: z.string(),
          }),
        ),
        totals: z.looseObject({ skipped: z.number(), errors: z.number() }),
        unresolved: z.number(),
      }),
    },
  },
  errors: [...BODY_ERRORS, "unknown_tenant"],
  examples: [
    { name: "a dry sweep", body: { filter: {}, dryRun: true }, status: 200 },
    { name: "keys with a tenant", body: { filter: { keys: ["{key}"], tenant: "t" }, dryRun: true }, status: 400 },
    { name: "broken JSON", rawBody: "{", status: 400 },
  ],
});

export const prometheusScrapeContract = defineContract({
  ...API_ROUTES.prometheusScrape,
  tag: "metrics",
  summary: "The queue's health for Prometheus: open and stuck claims, counters from the rollups, job runs, table size.",
  description:
    "The Prometheus text exposition format (prom-client). Meant for a token made with `idem token create --scope metrics`, " +
    "which may call this route and nothing else; any role may scrape. Every metric has HELP text; tenants past " +
    '`prometheus.tenantLabels` (idem.config.json) fold into tenant="other", an unrecorded tool is tool="". ' +
    "See deploy/prometheus/idem-alerts.yml for the alerts built on it.",
  action: "metrics:scrape",
  responses: {
    200: {
      description: "The metrics (text/plain; version=0.0.4).",
      contentTypes: ["text/plain"],
    },
  },
  errors: [],
  examples: [{ name: "a scrape", status: 200 }],
});
