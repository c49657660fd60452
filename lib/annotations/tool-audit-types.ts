import type { RepeatDistribution } from "@/lib/repeats/repeat-figures";

/** The tool audit's own shapes: its windows, the evidence the table shows for a tool, an admin's review. */

export const AUDIT_WINDOWS = { "24h": 24 * 3_600_000, "48h": 48 * 3_600_000, "7d": 7 * 24 * 3_600_000 } as const;
export type AuditWindow = keyof typeof AUDIT_WINDOWS;
/** The audit export's formats (GET /api/v1/tools/audit/export?format=), Markdown the default. */
export const AUDIT_EXPORT_FORMATS = ["md", "json"] as const;

/**
 * What the table says about one tool name over the window [since, now) — exactly, from `since`,
 * the start of the hour holding now − window (audit-window.ts; tenant-limited for limited actors).
 */
export type ToolEvidence = {
  /** Claims made in the window: rows created in it, and claims an operator released since (their audit snapshot). */
  records: number;
  /** Completions in the window, at their completion time (updated_at; a writer that leaves it NULL: its claim's time). */
  completed: number;
  /** Claims made in the window that are in_progress now. */
  inProgress: number;
  /** Events in the window, by kind. */
  replays: number;
  rejections: number;
  outcomeUnknown: number;
  /** in_progress rows past the tool's stuckAfter, of any age: an unresolved claim is current state. */
  stuck: number;
  /** Rows still in_progress whose writer reported "outcome unknown" in the window. */
  unresolvedOutcomeUnknown: number;
  /** Newest row for this tool created before now, at any age (ISO), null when the table holds none. */
  lastSeen: string | null;
  /**
   * From the duplicate scan, through its watermark (the audit's scannedThrough): one operation
   * executed under two keys, and calls refused for other arguments under a reused key. null: the
   * tool's writer records no arguments hash — not recorded, never 0.
   */
  duplicatesThrough: number | null;
  argumentsMismatches: number | null;
  /** The window's repeats by their delay after the first call, per band and per host; null: none recorded. */
  repeatDelays: ToolRepeatDelays | null;
};

export type ToolRepeatDelays = Pick<RepeatDistribution, "repeats" | "bands" | "median"> & {
  /** Per calling host, most repeats first; client null = not recorded. */
  byClient: (Pick<RepeatDistribution, "repeats" | "median"> & { client: string | null })[];
};

export const NO_EVIDENCE: ToolEvidence = {
  records: 0,
  completed: 0,
  inProgress: 0,
  replays: 0,
  rejections: 0,
  outcomeUnknown: 0,
  stuck: 0,
  unresolvedOutcomeUnknown: 0,
  lastSeen: null,
  duplicatesThrough: null,
  argumentsMismatches: null,
  repeatDelays: null,
};

/** An admin's word that a claimed tool is naturally idempotent (a set, not an append). */
export type AnnotationReviewNote = { reviewedBy: string; reviewedAt: string; reason: string };
