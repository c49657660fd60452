import "server-only";
import { buildToolsAudit, type ToolsAudit } from "@/lib/annotations/build-audit";
import type { AuditWindow } from "@/lib/annotations/tool-audit-types";
import type { Actor } from "@/lib/identity/actor";
import { can } from "@/lib/auth/permissions";
import { listPasswordAccounts } from "@/lib/auth/users";
import { listAudit, listAuditActions, type AuditPage, type AuditQuery } from "@/lib/audit/list-audit";
import { getConfig } from "@/lib/config/load";
import { getDb, getReadDb } from "@/lib/db/client";
import type { MetricsQuery } from "@/lib/metrics/metrics-params";
import type { MetricsReport } from "@/lib/metrics/metrics-report";
import { getMetrics } from "@/lib/metrics/query-metrics";
import { explainKey, type ExplainInput, type ExplainResult } from "@/lib/records/explain-key";
import { getOverviewCounts } from "@/lib/records/overview-counts";
import { readTableSize, type TableSize } from "@/lib/records/table-size";
import { lastChainVerification, type ChainVerificationStatus } from "@/lib/audit/audit-chain-verifications";
import { deadJobRuns, lastJobRuns, type DeadJobRuns, type LastJobRuns } from "@/lib/audit/job-runs";
import { RETENTION_MS } from "@/lib/retention/retention-window";
import { redactionOf } from "@/lib/privacy/redact";
import { checkTenantFilter, type UnknownTenant } from "@/lib/records/tenant-filter";

// What the other console pages show, read for them: pages get data here, never from lib/db.
// Counts, metrics, the audit list and the tools evidence come from the read replica when there is one
// (getReadDb); the metrics roll-up and the console's own state (listings, reviews, users) from the primary.

export async function loadOverviewPageData(actor: Actor, now: Date) {
  const config = getConfig();
  const [counts, metrics, bounds] = await Promise.all([
    getOverviewCounts(getReadDb(), actor, config, now),
    can(actor.role, "metrics:read")
      ? getMetrics(getReadDb(), config, actor, { window: "24h", tool: null, tenant: null }, now, { rollUpOn: getDb() })
      : Promise.resolve(null),
    loadTableBounds(actor),
  ]);
  return { counts, metrics, bounds };
}

/** The whole table's size and the jobs that keep it bounded; null for a caller limited to some tenants (it is every tenant's). */
export type TableBounds = { size: TableSize; retentionMs: number; jobs: LastJobRuns; deadRuns: DeadJobRuns };

async function loadTableBounds(actor: Actor): Promise<TableBounds | null> {
  if (actor.tenants.length > 0) return null;
  const [size, jobs, deadRuns] = await Promise.all([
    readTableSize(getReadDb()),
    lastJobRuns(getReadDb()),
    deadJobRuns(getReadDb(), new Date()),
  ]);
  return { size, retentionMs: RETENTION_MS, jobs, deadRuns };
}

export async function loadMetricsPageData(
  actor: Actor,
  query: MetricsQuery,
): Promise<UnknownTenant | { ok: true; report: MetricsReport; configuredTools: string[] }> {
  const tenant = await checkTenantFilter(getReadDb(), actor, query.tenant);
  if (!tenant.ok) return tenant;
  const config = getConfig();
  return {
    ok: true,
    report: await getMetrics(getReadDb(), config, actor, query, new Date(), { rollUpOn: getDb() }),
    configuredTools: Object.keys(config.tools),
  };
}

export async function loadAuditPageData(
  actor: Actor,
  query: AuditQuery,
): Promise<UnknownTenant | { ok: true; page: AuditPage; actions: string[]; chain: ChainVerificationStatus | null }> {
  const db = getReadDb();
  const tenant = await checkTenantFilter(db, actor, query.tenant);
  if (!tenant.ok) return tenant;
  const [page, actions, chain] = await Promise.all([
    listAudit(db, actor, query, { redact: redactionOf(getConfig()) }),
    listAuditActions(db, actor),
    lastChainVerification(db),
  ]);
  return { ok: true, page, actions, chain };
}

export function loadToolsPageData(actor: Actor, window: AuditWindow): Promise<ToolsAudit> {
  return buildToolsAudit(getDb(), getConfig(), actor, window, new Date(), { evidenceDb: getReadDb() });
}

export function explainKeyForPage(actor: Actor, input: ExplainInput): Promise<ExplainResult> {
  return explainKey(getDb(), actor, input);
}

/** The demo's accounts, shown on the sign-in page in demo mode only. */
export function listDemoAccounts() {
  return listPasswordAccounts(getDb());
}
