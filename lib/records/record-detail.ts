import "server-only";
import type { AuditEntryView } from "@/lib/audit/list-audit";
import type { Actor } from "@/lib/identity/actor";
import { formatDuration } from "@/lib/config/duration";
import type { IdemConfig } from "@/lib/config/schema";
import type { Db } from "@/lib/db/prisma";
import { keyProtection, type KeyProtection } from "@/lib/records/key-protection";
import { repeatDelayBand, type RepeatDelayBand } from "@/lib/repeats/repeat-delay-band";
import { refOf, inFlightMessage } from "idem-guard";
import { toRecordSummary, type RecordSummary } from "@/lib/records/lookup";
import { redactionOf } from "@/lib/privacy/redact";
import { compileRedactionWithPaths, type Masked } from "@/lib/privacy/compiled-redaction";
import { searchableValuesOf, type SearchableValue } from "@/lib/records/searchable-values";
import { isStuck, stuckAfterMs } from "@/lib/records/stuck-threshold";
import { readRecordDetail } from "@/lib/records/record-detail-read";
import type { TokenCheckCarrier } from "@/lib/auth/carried-token-check";
import { describeProcessor } from "@/lib/config/describe-processor";
import { answerInputOf } from "@/lib/records/record-answer-input";
import { recordAnswer, type RecordAnswer } from "@/lib/records/answer-sentence";
import { responseFacts, storedAmount, type StoredAmount } from "@/lib/records/response-facts";
import type { OtherClaim } from "@/lib/records/answer-sentence";
import type { RecordDuplicateRow } from "@/lib/records/record-detail-read";
import { duplicateEntryOf } from "@/lib/duplicates/list-duplicates";
import { duplicateFix } from "@/lib/duplicates/duplicate-text";
import type { DuplicateEntryView } from "@/lib/duplicates/duplicates-report";

/** A key in a URL: the writers' 64 hex, or whatever another writer used (printable, bounded). */
export const KEY_TEXT = /^[\x21-\x7e]{1,255}$/;
const HEX_KEY = /^[0-9a-fA-F]{64}$/;
const HEX_REF = /^[0-9a-fA-F]{12}$/;

export type KeyParam =
  { kind: "key"; key: string } | { kind: "ref"; ref: string } | { kind: "invalid"; message: string };

/** Reads a key from a URL segment: hex keys are lowercased (hexdigest is); a 12-hex ref is told apart. */
export function parseKeyParam(raw: string): KeyParam {
  let text: string;
  try {
    text = decodeURIComponent(raw).trim();
  } catch {
    return { kind: "invalid", message: "The key in the address is not valid URL encoding." };
  }
  if (HEX_REF.test(text)) return { kind: "ref", ref: text.toLowerCase() };
  if (HEX_KEY.test(text)) return { kind: "key", key: text.toLowerCase() };
  if (!KEY_TEXT.test(text))
    return {
      kind: "invalid",
      message: "A key is 64 hexadecimal characters (at most 255 printable characters for other writers).",
    };
  return { kind: "key", key: text };
}

export type StatusToolName = { name: string; source: "config" | "convention" } | null;

/**
 * The tool a repeat caller is told to use. The table does not record what the writer's message
 * said, so: the configured mcp-tool status tool when there is one, else the convention
 * get_<noun>_status (charge_card → get_charge_status), labelled as a convention.
 */
export function statusToolFor(config: IdemConfig, tool: string | null): StatusToolName {
  if (tool === null) return null;
  const processor = config.tools[tool]?.processor;
  if (processor?.type === "mcp-tool") return { name: processor.tool, source: "config" };
  return { name: `get_${nounOf(tool)}_status`, source: "convention" };
}

const LEADING_VERBS = /^(create|send|make|place|submit|start|issue|book)_/;

function nounOf(tool: string): string {
  return tool.replace(LEADING_VERBS, "").split("_")[0] || tool;
}

function articleFor(noun: string): string {
  return /^[aeiou]/i.test(noun) ? "An" : "A";
}

export type RepeatCallerAnswer =
  | { kind: "replay"; response: unknown; redactedPaths: string[] }
  | { kind: "in_flight"; message: string; statusTool: StatusToolName };

export type TimelineEntry = {
  at: string | null;
  kind:
    | "claim"
    | "replay_served"
    | "in_flight_rejected"
    | "outcome_unknown"
    | "arguments_mismatch"
    | "completed"
    | "operator";
  title: string;
  detail?: string;
  /** Events only: the calling host the writer recorded ("name version"), null where it records none. */
  client?: string | null;
  /** Repeats only (replay served, in-flight rejection): how long after the claim it arrived, and its band. */
  delay?: { ms: number; band: RepeatDelayBand };
};

/** An audit entry on its record's page: the audit log's view, less what the page already says (key, tenant, existence). */
export type RecordAuditEntry = Pick<
  AuditEntryView,
  "id" | "at" | "actor" | "actorRole" | "action" | "reason" | "before" | "after" | "evidence"
>;

export type RecordDetail = {
  record: RecordSummary;
  /** The one sentence support reads to the customer, and the times it rests on (lib/records/answer-sentence.ts). */
  answer: RecordAnswer;
  /** The amount the stored response holds (as this reader sees it), for the record's summary. */
  amount: StoredAmount;
  /** sha256 of the canonical arguments, as the writer recorded it; null: not recorded (an optional column). */
  argumentsSha256: string | null;
  /** Until when this key catches a repeat: the end of its time bucket, or a business key's row lifetime. */
  protection: KeyProtection;
  ageMs: number;
  stuck: { isStuck: boolean; thresholdMs: number; threshold: string; source: string };
  response: { value: unknown; present: boolean; redacted: boolean; redactedPaths: string[] };
  /** The searchable fields of its tool (idem.config.json tools.<tool>.search) in its masked response. */
  searchable: SearchableValue[];
  repeatCaller: RepeatCallerAnswer;
  timeline: TimelineEntry[];
  /** Null: this writer records no events (shown as such, never as zero). */
  eventCounts: Record<string, number> | null;
  eventsTruncated: boolean;
  audit: RecordAuditEntry[];
  /** The duplicates the scan found that this claim is part of, as the earlier claim or the later one (lib/duplicates). */
  duplicates: DuplicateEntryView[];
  /** How "Ask the processor" reaches this tool's processor, or null when none is configured. */
  processor: string | null;
};

const MAX_EVENTS = 200;
/** The events that are a repeat of the call (the key caught it). */
const REPEAT_KINDS = new Set(["replay_served", "in_flight_rejected"]);
const MAX_AUDIT = 100;

const EVENT_TITLES: Record<string, string> = {
  replay_served: "Replay served: a repeat got the stored response",
  in_flight_rejected: "Repeat rejected: told the call is in flight",
  outcome_unknown: "Outcome unknown: the processor did not answer in time",
  arguments_mismatch: "Refused: a different operation reused this business key",
};

/**
 * Everything the record page shows, for one key the actor may see (null otherwise). Responses
 * and audit snapshots are redacted for every role (docs/architecture.md#roles-and-permissions); revealing is a separate, audited act.
 */
export async function getRecordDetail(
  db: Db,
  config: IdemConfig,
  actor: Actor,
  key: string,
  now: Date,
  tokenCheck?: TokenCheckCarrier,
): Promise<RecordDetail | null> {
  const {
    record: row,
    events: eventsRead,
    audit: auditRows,
    duplicates: duplicateRows,
  } = await readRecordDetail(
    db,
    actor,
    key,
    // One more than shown: whether the list is whole, without counting on every request.
    { maxEvents: MAX_EVENTS + 1, maxAudit: MAX_AUDIT },
    tokenCheck,
  );
  if (!row) return null;
  const events = eventsRead.slice(0, MAX_EVENTS);
  // The counts per kind: from the events themselves when they are all here (nearly always), else counted.
  const eventTotals =
    eventsRead.length <= MAX_EVENTS
      ? tallyKinds(events)
      : await db.idempotencyEvent.groupBy({ by: ["kind"], where: { key: row.key }, _count: { _all: true } });

  const mask = maskerOf(config);
  const response = mask(row.response);
  const ref = refOf(row.key);
  const thresholdMs = stuckAfterMs(config, row.tool);
  const statusTool = statusToolFor(config, row.tool);
  const noun = row.tool === null ? "operation" : nounOf(row.tool);

  // The guard's own rule: completed replays the response, any other status is "in flight".
  const repeatCaller: RepeatCallerAnswer =
    row.status === "completed"
      ? { kind: "replay", response: response.value, redactedPaths: response.redactedPaths }
      : {
          kind: "in_flight",
          message: inFlightMessage(`${articleFor(noun)} ${noun}`, ref, statusTool?.name ?? "the tool's status check"),
          statusTool,
        };

  const timeline: TimelineEntry[] = [
    {
      at: row.createdAt.toISOString(),
      kind: "claim",
      title: "Claimed: the key was recorded before the side effect",
      detail: `status in_progress, tenant ${row.tenant}`,
    },
  ];
  const protection = keyProtection(config, row, now);
  // A business key never stops deduplicating: no window end to be near (the scan's count-repeats.ts reads it alike).
  const windowMs = protection.kind === "bucket" ? protection.windowMs : Infinity;
  for (const event of events) {
    const kind = event.kind as TimelineEntry["kind"];
    const delayMs = Math.max(0, event.at.getTime() - row.createdAt.getTime());
    timeline.push({
      at: event.at.toISOString(),
      kind: kind in EVENT_TITLES ? kind : "outcome_unknown",
      title: EVENT_TITLES[event.kind] ?? event.kind,
      detail: describeEventDetail(event.detail),
      client: event.client,
      ...(REPEAT_KINDS.has(event.kind) ? { delay: { ms: delayMs, band: repeatDelayBand(delayMs, windowMs) } } : {}),
    });
  }
  if (row.status === "completed") {
    timeline.push({
      at: row.updatedAt?.toISOString() ?? null,
      kind: "completed",
      title: "Completed: the outcome was stored",
      detail: row.updatedAt ? undefined : "time not recorded: this writer does not set updated_at",
    });
  }
  const audit = auditRows.map((entry): RecordAuditEntry => ({
    id: entry.id,
    at: entry.at.toISOString(),
    actor: entry.actor,
    actorRole: entry.actorRole,
    action: entry.action,
    reason: entry.reason,
    before: mask(entry.before).value,
    after: mask(entry.after).value,
    evidence: mask(entry.evidence).value,
  }));
  for (const entry of audit)
    timeline.push({
      at: entry.at,
      kind: "operator",
      title: `Operator action: ${entry.action}`,
      detail: `${entry.actor} (${entry.actorRole})${entry.reason ? ` — ${entry.reason}` : ""}`,
    });
  timeline.sort(compareTimelineEntries);

  // Each pair as the duplicates list shows it, and what the other claim's row says now (for the answer only).
  // A pair of an earlier claim of this key (released, then claimed again) is not this claim's.
  const ofThisClaim = (found: RecordDuplicateRow) =>
    (found.secondKey === row.key ? found.secondAt : found.firstAt).getTime() === row.createdAt.getTime();
  const pairs = duplicateRows.filter(ofThisClaim).map((found) => {
    const entry = duplicateEntryOf(found);
    const view: DuplicateEntryView = { ...entry, fix: duplicateFix(entry) };
    return { view, otherOutcome: otherClaimOutcome(found, row.key, mask) };
  });
  const duplicates = pairs.map((pair) => pair.view);
  const eventCounts =
    eventTotals.length === 0 ? null : Object.fromEntries(eventTotals.map((t) => [t.kind, t._count._all]));
  const totalEvents = eventTotals.reduce((sum, t) => sum + t._count._all, 0);
  const toolThreshold = row.tool !== null ? config.tools[row.tool]?.stuckAfter : undefined;

  return {
    record: toRecordSummary(row),
    answer: recordAnswer(
      answerInputOf(config, row, {
        response,
        stuck: isStuck(config, row, now),
        events,
        audit,
        protection,
        duplicates: pairs.map((pair) => ({ ...pair.view, otherOutcome: pair.otherOutcome })),
      }),
    ),
    amount: storedAmount(response.value),
    argumentsSha256: row.argumentsSha256,
    protection,
    ageMs: Math.max(0, now.getTime() - row.createdAt.getTime()),
    stuck: {
      isStuck: isStuck(config, row, now),
      thresholdMs,
      threshold: formatDuration(thresholdMs),
      source:
        toolThreshold !== undefined
          ? `stuckAfter of tool ${row.tool}`
          : "defaultStuckAfter (no threshold configured for this tool)",
    },
    response: {
      value: response.value,
      present: row.response !== null,
      redacted: response.redactedPaths.length > 0,
      redactedPaths: response.redactedPaths,
    },
    searchable: searchableValuesOf(config, row.tool, response.value),
    repeatCaller,
    timeline,
    eventCounts,
    eventsTruncated: totalEvents > events.length,
    audit,
    duplicates,
    processor: describeProcessor(config, row.tool),
  };
}

// One compiled redaction per loaded configuration (getConfig keeps the object until the file changes).
const maskers = new WeakMap<IdemConfig, (value: unknown) => Masked>();

/** redactJson under the configuration's redaction, its paths parsed once: the detail masks on every request. */
function maskerOf(config: IdemConfig): (value: unknown) => Masked {
  let mask = maskers.get(config);
  if (!mask) {
    mask = compileRedactionWithPaths(redactionOf(config));
    maskers.set(config, mask);
  }
  return mask;
}

function tallyKinds(events: { kind: string }[]): { kind: string; _count: { _all: number } }[] {
  const counts = new Map<string, number>();
  for (const { kind } of events) counts.set(kind, (counts.get(kind) ?? 0) + 1);
  return [...counts].map(([kind, all]) => ({ kind, _count: { _all: all } }));
}

// Same-instant entries keep the protocol's order: a replay needs the completion before it.
const KIND_ORDER: Record<TimelineEntry["kind"], number> = {
  claim: 0,
  in_flight_rejected: 1,
  outcome_unknown: 1,
  arguments_mismatch: 1,
  completed: 2,
  replay_served: 3,
  operator: 4,
};

/** By time; entries without one (completion by a writer that sets no updated_at) last. */
function compareTimelineEntries(a: TimelineEntry, b: TimelineEntry): number {
  if (a.at !== b.at) {
    if (a.at === null) return 1;
    if (b.at === null) return -1;
    return a.at < b.at ? -1 : 1;
  }
  return KIND_ORDER[a.kind] - KIND_ORDER[b.kind];
}

function describeEventDetail(detail: unknown): string | undefined {
  if (detail === null || detail === undefined) return undefined;
  if (typeof detail === "object" && "reason" in detail && typeof (detail as { reason: unknown }).reason === "string")
    return (detail as { reason: string }).reason;
  if (typeof detail === "object" && "status" in detail)
    return `row status then: ${String((detail as { status: unknown }).status)}`;
  // An arguments_mismatch event: the two argument hashes, shortened as the page shows hashes.
  const { call, stored } = detail as { call?: unknown; stored?: unknown };
  if (typeof call === "string" && typeof stored === "string")
    return `the call's arguments hash ${call.slice(0, 16)}…, the row's ${stored.slice(0, 16)}…`;
  return JSON.stringify(detail).slice(0, 200);
}

/** What the other claim of a duplicate pair did, from its row as the table holds it now (masked as this reader sees it). */
function otherClaimOutcome(
  found: RecordDuplicateRow,
  recordKey: string,
  mask: (value: unknown) => { value: unknown },
): OtherClaim["outcome"] {
  const pairedAt = found.secondKey === recordKey ? found.firstAt : found.secondAt;
  // No row under the other key, or a later claim of it (the paired one was deleted since): the paired claim is gone.
  if (found.otherStatus === null || found.otherCreatedAt?.getTime() !== pairedAt.getTime()) return "gone";
  if (found.otherStatus === "in_progress") return "open";
  if (responseFacts(mask(found.otherResponse).value, { idLabel: "id" }).refused) return "refused";
  return found.otherStatus === "completed" && found.otherResponse !== null ? "done" : "other";
}
