import "server-only";
import type { Actor } from "@/lib/identity/actor";
import type { IdemConfig } from "@/lib/config/schema";
import type { Db } from "@/lib/db/prisma";
import {
  type DeclaredAnnotations,
  type EffectiveAnnotations,
  type ListedTool,
} from "@/lib/tool-listings/annotation-types";
import {
  AUDIT_WINDOWS,
  type AnnotationReviewNote,
  type AuditWindow,
  NO_EVIDENCE,
  type ToolEvidence,
} from "@/lib/annotations/tool-audit-types";
import { loadLatestReviews, reviewKey } from "./annotation-reviews";
import { summarizeServer, type ServerSummary } from "./audited-servers";
import { declaredHints, effectiveAnnotations } from "@/lib/tool-listings/effective-annotations";
import { loadAuditedServers } from "./server-store";
import { describeChange, diffListings, type ToolChange } from "./snapshot-diff";
import { loadServerSnapshots, loadSnapshotServerNames } from "./snapshot-store";
import { loadToolEvidence } from "./tool-evidence";
import { auditWindowPhrase, auditWindowStart } from "./audit-window";
import { latestVerifications } from "./latest-verifications";
import { verificationForReader } from "./verification-for-reader";
import type { LatestVerification } from "@/lib/annotations/tool-verification-types";
import { redactionOf } from "@/lib/privacy/redact";
import { summarizeVerdicts, type VerdictCount } from "./verdict-summary";
import { verdictFor, type VerdictKind, type VerdictTone } from "./verdicts";

export type ServerAuditStatus = ServerSummary & {
  /** ok: the newest attempt listed tools; error: it failed (reason); never_listed: no attempt yet. */
  status: "ok" | "error" | "never_listed";
  reason: string | null;
  lastAttemptAt: string | null;
  /** The listing the tools below come from (may be older than a failed newest attempt). */
  listedAt: string | null;
  listingSource: "live" | "upload" | null;
  previousListedAt: string | null;
  toolCount: number;
  changes: ToolChange[];
  /** idem.config.json marks it "verify": true (staging): an admin may run the double-call test on its tools. */
  verifiable: boolean;
};

export type ToolAuditRow = {
  /** null: no server lists this tool; the row exists because the table holds records for it. */
  server: string | null;
  name: string;
  declared: DeclaredAnnotations | null;
  effective: EffectiveAnnotations | null;
  evidence: ToolEvidence;
  verdict: VerdictKind;
  /** The verdict's one word, as the summary counts it. */
  verdictLabel: string;
  tone: VerdictTone;
  certain: boolean;
  explanation: string;
  fix: string | null;
  review: AnnotationReviewNote | null;
  /** The latest double-call test of this server's tool (stale: run on a listing entry that has since changed). */
  verification: LatestVerification | null;
  /** Changes to this tool since the server's previous listing, in words. */
  changes: string[];
  /** The tool's input schema as its latest listing sent it (null: none sent, or no listing names the tool). */
  inputSchema: Record<string, unknown> | null;
};

export type ToolsAudit = {
  window: AuditWindow;
  generatedAt: string;
  since: string;
  /** How far the duplicate scan has read: the duplicates, mismatches and repeat delays count to here. */
  scannedThrough: string | null;
  servers: ServerAuditStatus[];
  tools: ToolAuditRow[];
  /** The verdicts of `tools`, counted: every count is a number of rows above, under the rows' own word. */
  summary: VerdictCount[];
};

export function parseAuditWindow(value: string | null | undefined): AuditWindow | null {
  if (value === null || value === undefined || value === "") return "24h";
  return Object.hasOwn(AUDIT_WINDOWS, value) ? (value as AuditWindow) : null;
}

/**
 * The annotation audit from the stored snapshots (never a live listing: reading the audit
 * contacts no server) beside the table's evidence. A server whose newest attempt failed keeps
 * its last good listing in the audit, with the failure shown on the server.
 */
export async function buildToolsAudit(
  db: Db,
  config: IdemConfig,
  actor: Actor,
  window: AuditWindow,
  now = new Date(),
  /** evidenceDb: where the table's evidence is read (the read replica); the listings and reviews come from `db`. */
  options: { evidenceDb?: Db } = {},
): Promise<ToolsAudit> {
  const audited = await loadAuditedServers(db, config);
  const known = new Set(audited.map((s) => s.name));
  const uploadOnly = (await loadSnapshotServerNames(db)).filter((name) => !known.has(name));
  const summaries: ServerSummary[] = [
    ...audited.map(summarizeServer),
    ...uploadOnly.map((name): ServerSummary => ({
      name,
      origin: "upload",
      transport: "upload",
      target: null,
      headerNames: [],
    })),
  ];
  const snapshots = await loadServerSnapshots(
    db,
    summaries.map((s) => s.name),
  );
  const reviews = await loadLatestReviews(db);

  const servers: ServerAuditStatus[] = [];
  const listed: { server: string; tool: ListedTool; changes: string[] }[] = [];
  for (const summary of summaries) {
    const snaps = snapshots.get(summary.name);
    const latest = snaps?.latestAttempt ?? null;
    const good = snaps?.latestGood ?? null;
    const previous = snaps?.previousGood ?? null;
    const changes = good?.tools && previous?.tools ? diffListings(previous.tools, good.tools) : [];
    servers.push({
      ...summary,
      status: latest === null ? "never_listed" : latest.error !== null ? "error" : "ok",
      reason: latest?.error ?? null,
      lastAttemptAt: latest?.takenAt ?? null,
      listedAt: good?.takenAt ?? null,
      listingSource: good?.source ?? null,
      previousListedAt: previous?.takenAt ?? null,
      toolCount: good?.tools?.length ?? 0,
      changes,
      // Only the file's own servers: an admin-added one can never be verified.
      verifiable: summary.origin === "config" && config.mcpServers.some((s) => s.name === summary.name && s.verify),
    });
    for (const tool of good?.tools ?? []) {
      listed.push({
        server: summary.name,
        tool,
        changes: changes.filter((c) => c.tool === tool.name).map(describeChange),
      });
    }
  }

  // Whole hours: the partial hour before now − window is never counted from the base table.
  const since = auditWindowStart(window, now);
  const named = auditWindowPhrase(window, since);
  const { byTool: evidence, scannedThrough } = await loadToolEvidence(options.evidenceDb ?? db, actor, config, {
    since,
    now,
    rollUpOn: db,
    tools: [...new Set(listed.map((l) => l.tool.name))],
  });
  const listedNames = new Set(listed.map((l) => l.tool.name));
  const verifications = await latestVerifications(
    db,
    listed.map(({ server, tool }) => ({ server, tool: tool.name, current: tool })),
  );
  const redaction = redactionOf(config);

  const tools: ToolAuditRow[] = listed.map(({ server, tool, changes }) => {
    const declared = declaredHints(tool.annotations);
    const effective = effectiveAnnotations(declared);
    const toolEvidence = evidence.get(tool.name) ?? { ...NO_EVIDENCE };
    const review = reviews.get(reviewKey(server, tool.name)) ?? null;
    const stored = verifications.get(reviewKey(server, tool.name));
    const verification = stored ? verificationForReader(stored, actor, redaction) : null;
    const verdict = verdictFor({
      tool: tool.name,
      effective,
      evidence: toolEvidence,
      review,
      window: named,
      verification,
    });
    return {
      server,
      name: tool.name,
      declared,
      effective,
      evidence: toolEvidence,
      verdict: verdict.kind,
      verdictLabel: verdict.label,
      tone: verdict.tone,
      certain: verdict.certain,
      explanation: verdict.explanation,
      fix: verdict.fix,
      review,
      verification,
      changes,
      inputSchema: tool.inputSchema ?? null,
    };
  });
  // "No server lists it" is only as good as the listings: a server never listed may well list it.
  const unlistedServers = servers.filter((s) => s.listedAt === null).map((s) => s.name);
  for (const [name, toolEvidence] of [...evidence.entries()].sort(([a], [b]) => a.localeCompare(b))) {
    if (listedNames.has(name) || toolEvidence.records + toolEvidence.stuck === 0) continue;
    const verdict = verdictFor({ tool: name, effective: null, evidence: toolEvidence, review: null, window: named });
    const caveat =
      unlistedServers.length > 0
        ? ` Not every server has a listing yet (${unlistedServers.join(", ")}): refresh the listings before trusting this.`
        : "";
    tools.push({
      server: null,
      name,
      declared: null,
      effective: null,
      evidence: toolEvidence,
      verdict: verdict.kind,
      verdictLabel: verdict.label,
      tone: verdict.tone,
      certain: verdict.certain && caveat === "",
      explanation: verdict.explanation + caveat,
      fix: verdict.fix,
      review: null,
      verification: null,
      changes: [],
      inputSchema: null,
    });
  }
  return {
    window,
    generatedAt: now.toISOString(),
    since: since.toISOString(),
    scannedThrough,
    servers,
    tools,
    summary: summarizeVerdicts(tools),
  };
}
