import "server-only";
import type { Redaction } from "@/lib/privacy/redact";
import type { Actor } from "@/lib/identity/actor";
import type { Db } from "@/lib/db/prisma";
import { refOf } from "idem-guard";
import { extractLookupTokens, MAX_TOKENS_PER_LOOKUP } from "@/lib/records/lookup-tokens";
import { traceFates, TRIM_RECORD_DAYS, type RefFates } from "@/lib/records/ref-fate";
import { actorTenantScope } from "@/lib/tenancy/tenant-scope";
import { Prisma } from "@/generated/prisma/client";
import { rawQuery } from "@/lib/db/raw-query";
import { RETENTION_MS } from "@/lib/retention/retention-window";
import { carriedTokenColumn, type TokenCheckCarrier } from "@/lib/auth/carried-token-check";

/** One record as lists and look-ups show it: no response (it may hold personal data). */
export type RecordSummary = {
  key: string;
  ref: string;
  tenant: string;
  subject: string | null;
  tool: string | null;
  status: string;
  createdAt: string;
  updatedAt: string | null;
};

export const RECORD_SUMMARY_SELECT = {
  key: true,
  tenant: true,
  subject: true,
  tool: true,
  status: true,
  createdAt: true,
  updatedAt: true,
} as const;

export function toRecordSummary(row: {
  key: string;
  tenant: string;
  subject: string | null;
  tool: string | null;
  status: string;
  createdAt: Date;
  updatedAt: Date | null;
}): RecordSummary {
  return {
    key: row.key,
    ref: refOf(row.key),
    tenant: row.tenant,
    subject: row.subject,
    tool: row.tool,
    status: row.status,
    createdAt: row.createdAt.toISOString(),
    updatedAt: row.updatedAt?.toISOString() ?? null,
  };
}

/** Rows a ref can match before the page says "more"; 12 hex is 48 bits, so two is already rare. */
const MAX_MATCHES_PER_REF = 20;

// LookupRow's columns after spec and token, in the order the searchable branches send them (UNION ALL pairs them by position).
const MATCH_COLUMNS = Prisma.raw(
  `key, tenant, subject, tool, status, created_at AS "createdAt", updated_at AS "updatedAt"`,
);

/**
 * The branches that find every key and ref of a lookup, each row labelled with the token it
 * answers: the keys by equality, each ref as a primary-key range (`key >= ref AND key < ref || 'g'`:
 * key is COLLATE "C"), at most MAX_MATCHES_PER_REF + 1 rows a ref, ordered by key.
 *
 * The values reach the scans through a subquery PostgreSQL does not flatten (`OFFSET 0`), so a custom
 * plan estimates the range as a generic one does: after five executions the prepared statement keeps
 * its generic plan instead of planning every request again (docs/bench.md, "seventeenth pass";
 * tests/integration/lookup-plan.test.ts).
 */
export function keysAndRefsBranches(keys: string[], refs: string[], tenantScope: Prisma.Sql): Prisma.Sql[] {
  const parts: Prisma.Sql[] = [];
  if (keys.length > 0)
    parts.push(
      Prisma.sql`SELECT NULL::int AS spec, m.key AS token, m.* FROM (SELECT ${keys}::text[] AS keys OFFSET 0) AS k
        CROSS JOIN LATERAL (SELECT ${MATCH_COLUMNS} FROM idempotency WHERE key = ANY(k.keys) ${tenantScope}) AS m`,
    );
  for (const ref of refs)
    parts.push(
      // A subquery, not a parenthesised branch: the statement starts with SELECT whatever its first part.
      Prisma.sql`SELECT * FROM (SELECT NULL::int AS spec, r.ref AS token, m.*
        FROM (SELECT ${ref}::text AS ref, ${`${ref}g`}::text AS bound OFFSET 0) AS r
        CROSS JOIN LATERAL (SELECT ${MATCH_COLUMNS} FROM idempotency WHERE key >= r.ref AND key < r.bound ${tenantScope}
          ORDER BY key LIMIT ${Prisma.raw(String(MAX_MATCHES_PER_REF + 1))}) AS m) AS ref_range`,
    );
  return parts;
}

/**
 * What the visible tables still remember about a ref (or key) that matched no row, within the
 * reader's tenants: `fate` says released or trimmed only when the audit log records it.
 */
export type RefTrace = RefFates & {
  ref: string;
  events: { count: number; first: string; last: string } | null;
  lastAudit: { action: string; at: string; actor: string } | null;
};

/** A searchable response field a value was found under (idem.config.json's tools.<tool>.search). */
export type SearchableFieldMatch = RecordSummary & { field: { label: string; tool: string } };

/**
 * A row of the lookup's statement: `spec` null for a key's or a ref's row, else the index of the
 * searchable field (lib/config/search-specs.ts) whose value `token` it holds.
 */
export type LookupRow = Parameters<typeof toRecordSummary>[0] & { spec: number | null; token: string };

/** A search among the searchable fields: branches the lookup's statement takes in, and how their rows become matches. */
export type SearchFieldsQuery<
  Matches extends Map<string, SearchableFieldMatch[]> = Map<string, SearchableFieldMatch[]>,
> = {
  /** Null: nothing to search (no field configured, or every value refused). */
  statement: Prisma.Sql | null;
  /** The purpose it is prepared under (lib/db/raw-query.ts) for the few values a paste holds; else it goes unnamed. */
  prepareAs?: string;
  collect(rows: readonly LookupRow[]): Matches;
};

/** The search of values among the configured searchable fields (lib/search); absent when none are configured. */
export type SearchFields = (values: string[]) => SearchFieldsQuery;

/**
 * One thing the paste named, answered in the order it appears: found (one record), several (a
 * ref two keys share, the rare case), gone (released or trimmed: the trace says so) or unknown.
 */
export type LookupAnswer = {
  token: string;
  kind: "key" | "ref" | "field";
  outcome: "found" | "several" | "gone" | "unknown";
  matches: RecordSummary[];
  /** The searchable field each match was found under (kind "field" only), in matches' order. */
  fields: Array<{ label: string; tool: string }>;
  /** More records share this ref than are listed. */
  moreMatches: boolean;
  /** For a ref or key that matched no row: what events and the audit log remember. */
  trace: RefTrace | null;
};

export type LookupResult =
  | { kind: "invalid"; message: string }
  | { kind: "no_refs"; message: string }
  | {
      kind: "searched";
      /** Each ref, key and id found in the text, in order; ids that matched nothing are in unmatchedIds. */
      answers: LookupAnswer[];
      /** Id-like words looked up among the searchable fields that matched nothing. */
      unmatchedIds: string[];
      /** Distinct refs, keys and ids the text held; at most `limit` were looked up. */
      totalTokens: number;
      limit: number;
      /** Values never looked up because the pages mask them. */
      notSearched: { emails: number; cardNumbers: number };
      keys: string[];
      refs: string[];
      /** The paste held more candidates than were looked up. */
      truncated: boolean;
      matches: RecordSummary[];
      /** A ref matched more rows than are listed. */
      moreMatches: boolean;
      /** Refs and keys that matched nothing, with any trace left in events or the audit log. */
      misses: RefTrace[];
      /** Why nothing matched, most likely first; empty when something matched. */
      whyMissing: string[];
      /**
       * The refs nothing accounts for (no row, release or trim) when nothing matched, with the
       * possibilities still open: the page says "never seen" once and lists these under it.
       */
      unseen: UnseenRefs | null;
    };

export type UnseenRefs = {
  refs: string[];
  /** What events or the audit log still hold of them (an operator's action, writers' events). */
  traces: string[];
  /** How far back releases and trims are remembered. */
  days: number;
  /** The reader is limited to some tenants: the sentence says "in your tenants". */
  inYourTenants: boolean;
  possibilities: string[];
};

/**
 * Looks up everything the pasted text names, within the actor's tenants. A ref is a key prefix:
 * `key >= ref AND key < ref || 'g'` is a range scan on the primary key because key is
 * COLLATE "C" (under a language collation it would read the whole table). A full key is an
 * exact match: the record it names, not another that merely shares its first 12 characters.
 */
export async function lookUpRefs(
  db: Db,
  actor: Actor,
  text: string,
  options: {
    redact: Redaction | readonly string[];
    searchFields?: SearchFields;
    /** A bearer request's token check, carried by the lookup's statement (lib/auth/carried-token-check.ts). */
    tokenCheck?: TokenCheckCarrier;
  },
): Promise<LookupResult> {
  const extracted = extractLookupTokens(text);
  if (!extracted.ok) return { kind: "invalid", message: extracted.message };
  const searchFields = options.searchFields;
  const tokens = extracted.tokens.filter(
    // A ref written beside its own key names the key's record: one answer, not two.
    (token) =>
      !(token.kind === "ref" && extracted.tokens.some((t) => t.kind === "key" && t.value.startsWith(token.value))) &&
      (token.kind !== "word" || searchFields),
  );
  const keys = tokens.filter((t) => t.kind === "key").map((t) => t.value);
  const bareRefs = tokens.filter((t) => t.kind === "ref").map((t) => t.value);
  if (tokens.length === 0) {
    return {
      kind: "no_refs",
      message: searchFields
        ? "No ref found in that text, nor a key or a searchable id. A ref is 12 hexadecimal characters, as in “(ref 3f9a1c2b7d4e)”; a full key is 64; receipts and tracking numbers are found as the configuration names them."
        : "No ref found in that text. A ref is 12 hexadecimal characters, as in “(ref 3f9a1c2b7d4e)”; a full key is 64.",
    };
  }
  // A 12-digit order number is hex too: every token is also looked for among the searchable fields.
  const fieldValues = searchFields ? tokens.map((t) => t.value) : [];

  // Two statements side by side: the keys and refs, carrying the token check, and the searchable
  // fields. One statement of both planned slower than the two in parallel (docs/bench.md, "Issue #31, tenth pass").
  const search = searchFields && fieldValues.length > 0 ? searchFields(fieldValues) : null;
  const branches = keysAndRefsBranches(keys, bareRefs, actorTenantScope(actor).and());
  const [found, byField] = await Promise.all([
    branches.length > 0 ? readLookupRows(db, branches, options.tokenCheck) : [],
    search
      ? (search.statement
          ? rawQuery<LookupRow>(db, search.statement, { prepareAs: search.prepareAs })
          : Promise.resolve([])
        ).then((rows) => search.collect(rows))
      : new Map<string, SearchableFieldMatch[]>(),
  ]);

  const rowsOf = new Map<string, RecordSummary[]>();
  for (const token of [...keys, ...bareRefs]) rowsOf.set(token, []);
  // Key order within a ref, whatever order the branches of the UNION come back in.
  for (const row of found.toSorted((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0)))
    rowsOf.get(row.token)?.push(toRecordSummary(row));

  const missed = tokens.filter((t) => t.kind !== "word" && (rowsOf.get(t.value) ?? []).length === 0);
  const misses = await traceRefs(
    db,
    actor,
    missed.filter((t) => (byField.get(t.value) ?? []).length === 0).map((t) => t.value),
    options,
  );
  const traceOf = new Map(misses.map((trace) => [trace.ref, trace]));

  const answers: LookupAnswer[] = [];
  const unmatchedIds: string[] = [];
  for (const token of tokens) {
    const rows = rowsOf.get(token.value) ?? [];
    const fieldRows = byField.get(token.value) ?? [];
    if (rows.length > 0 || token.kind !== "word") {
      if (rows.length === 0 && fieldRows.length > 0) {
        answers.push(fieldAnswer(token.value, fieldRows));
        continue;
      }
      const trace = traceOf.get(token.value) ?? null;
      answers.push({
        token: token.value,
        kind: token.kind === "key" ? "key" : "ref",
        outcome:
          rows.length > 1
            ? "several"
            : rows.length === 1
              ? "found"
              : trace && trace.fate !== "never_seen"
                ? "gone"
                : "unknown",
        matches: rows.slice(0, MAX_MATCHES_PER_REF),
        fields: [],
        moreMatches: rows.length > MAX_MATCHES_PER_REF,
        trace,
      });
    } else if (fieldRows.length > 0) answers.push(fieldAnswer(token.value, fieldRows));
    else unmatchedIds.push(token.value);
  }

  const matches = new Map<string, RecordSummary>();
  for (const answer of answers) for (const row of answer.matches) matches.set(row.key, row);
  const sorted = [...matches.values()].sort((a, b) =>
    a.createdAt < b.createdAt ? 1 : a.createdAt > b.createdAt ? -1 : 0,
  );
  const missing = sorted.length === 0 ? await explainMissing(db, actor, misses) : { facts: [], unseen: null };
  const refs = [...bareRefs];
  for (const key of keys) if (!refs.includes(refOf(key))) refs.push(refOf(key));
  return {
    kind: "searched",
    answers,
    unmatchedIds,
    totalTokens: extracted.total,
    limit: MAX_TOKENS_PER_LOOKUP,
    notSearched: extracted.masked,
    keys,
    refs,
    truncated: extracted.total > extracted.tokens.length,
    matches: sorted,
    moreMatches: answers.some((answer) => answer.moreMatches),
    misses,
    whyMissing: [...missing.facts, ...(missing.unseen ? unseenReasons(missing.unseen) : [])],
    unseen: missing.unseen,
  };
}

/** The most branches a prepared lookup statement has: a text per count, each kept on every connection. */
const MAX_PREPARED_BRANCHES = 3;

/**
 * The branches' rows in one statement, as one json column beside the carried token check's (a
 * second column): the request waits for one round trip, not two. Prepared for the usual paste (a
 * ref or three): every branch is a primary-key equality or range, whose generic plan is the same.
 */
async function readLookupRows(
  db: Db,
  branches: Prisma.Sql[],
  tokenCheck: TokenCheckCarrier | undefined,
): Promise<LookupRow[]> {
  type JsonRow = Omit<LookupRow, "createdAt" | "updatedAt"> & { createdAt: string; updatedAt: string | null };
  const [read] = await rawQuery<{ rows: JsonRow[]; token: unknown }>(
    db,
    lookupRowsStatement(branches, carriedTokenColumn(db, tokenCheck)),
    branches.length <= MAX_PREPARED_BRANCHES ? { prepareAs: "lookup" } : {},
  );
  tokenCheck?.settle(db, read?.token ?? null);
  return (read?.rows ?? []).map((row) => ({
    ...row,
    createdAt: new Date(row.createdAt),
    updatedAt: row.updatedAt === null ? null : new Date(row.updatedAt),
  }));
}

/** readLookupRows' one statement: the branches' rows as a json column, and the carried token check's column. */
export function lookupRowsStatement(branches: Prisma.Sql[], tokenColumn: Prisma.Sql): Prisma.Sql {
  return Prisma.sql`SELECT (SELECT COALESCE(json_agg(m), '[]'::json) FROM (${Prisma.join(branches, " UNION ALL ")}) m) AS rows,
      ${tokenColumn} AS token`;
}

function fieldAnswer(token: string, rows: SearchableFieldMatch[]): LookupAnswer {
  const kept = rows.slice(0, MAX_MATCHES_PER_REF);
  return {
    token,
    kind: "field",
    outcome: rows.length > 1 ? "several" : "found",
    matches: kept.map(({ field: _field, ...summary }) => summary),
    fields: kept.map((row) => row.field),
    moreMatches: rows.length > MAX_MATCHES_PER_REF,
    trace: null,
  };
}

/** Each token's trace: its fate (released, trimmed, never seen) and what events and the audit log hold. */
export async function traceRefs(
  db: Db,
  actor: Actor,
  tokens: readonly string[],
  options: { redact: Redaction | readonly string[] },
): Promise<RefTrace[]> {
  if (tokens.length === 0) return [];
  const [fates, traces] = await Promise.all([
    traceFates(db, actor, tokens, options),
    Promise.all(tokens.map((token) => traceRef(db, actor, token))),
  ]);
  return traces.map((trace) => ({
    ...trace,
    ...(fates.get(trace.ref) ?? { fate: "never_seen", released: [], trimmed: [] }),
  }));
}

/** Events and audit rows outlive the rows they describe (trim, release): they say a ref once existed. */
async function traceRef(db: Db, actor: Actor, token: string): Promise<Omit<RefTrace, keyof RefFates>> {
  const scope = actorTenantScope(actor).where;
  const range = token.length === 64 ? { equals: token } : { gte: token, lt: `${token}g` };
  const [events, audit] = await Promise.all([
    db.idempotencyEvent.aggregate({
      where: { key: range, ...scope },
      _count: { _all: true },
      _min: { at: true },
      _max: { at: true },
    }),
    db.auditLog.findFirst({
      where: { key: range, ...scope },
      orderBy: { at: "desc" },
      select: { action: true, at: true, actor: true },
    }),
  ]);
  return {
    ref: token,
    events:
      events._count._all > 0 && events._min.at && events._max.at
        ? { count: events._count._all, first: events._min.at.toISOString(), last: events._max.at.toISOString() }
        : null,
    lastAudit: audit ? { action: audit.action, at: audit.at.toISOString(), actor: audit.actor } : null,
  };
}

/**
 * One sentence per miss the audit log accounts for (released, trimmed: facts, not guesses); the
 * possibilities are listed only when some miss was never seen, and then only those still open.
 */
async function explainMissing(
  db: Db,
  actor: Actor,
  misses: RefTrace[],
): Promise<{ facts: string[]; unseen: UnseenRefs | null }> {
  const reasons: string[] = [];
  // A fact about a ref no release or trim accounts for: also said under "never seen".
  const traces: string[] = [];
  const trace = (sentence: string) => {
    reasons.push(sentence);
    traces.push(sentence);
  };
  for (const miss of misses) {
    const released = miss.released[0];
    const trimmed = miss.trimmed[0];
    if (released) {
      reasons.push(
        `${miss.ref}: ${released.repeatAllowed ? "repeat allowed" : "released"} by ${released.actor} at ${utcMinute(new Date(released.at))}${released.forced ? ' (forced, without "not taken" evidence)' : ""}${released.reason ? ` — “${released.reason}”` : ""} (audit entry ${released.auditId}). ${released.repeatAllowed ? "The completed record was deleted so the next identical call runs again" : "A released claim is deleted from the table"}; its snapshot is in the audit log.`,
      );
    } else if (trimmed) {
      reasons.push(
        `${miss.ref}: trimmed by retention run ${trimmed.runId ?? "(no run id)"} at ${utcMinute(new Date(trimmed.at))}${trimmed.cutoff ? `, which deleted rows created before ${utcMinute(new Date(trimmed.cutoff))}` : ""} (audit entry ${trimmed.auditId}).`,
      );
    } else if (miss.lastAudit) {
      trace(
        `${miss.ref}: an operator acted on it — ${miss.lastAudit.action} by ${miss.lastAudit.actor} at ${utcMinute(new Date(miss.lastAudit.at))} — but the audit log holds no release or trim of it.`,
      );
    } else if (miss.events) {
      trace(
        `${miss.ref}: writers recorded ${miss.events.count} event(s) for it, the last at ${utcMinute(new Date(miss.events.last))}, but the row is gone and no release or trim of it is recorded.`,
      );
    }
  }
  const unseen = misses.filter((m) => m.fate === "never_seen");
  if (unseen.length === 0) return { facts: reasons, unseen: null };
  const scope = actorTenantScope(actor);
  const oldest = await db.idempotency.findFirst({
    where: scope.where,
    orderBy: { createdAt: "asc" },
    select: { createdAt: true },
  });
  const possibilities = [
    "It never existed: the text may hold another number (an order or request id), or the ref was mistyped — check it against the customer's message.",
    `It was trimmed more than ${TRIM_RECORD_DAYS} days ago: rows are kept about ${RETENTION_MS / 3_600_000} h and trims are remembered ${TRIM_RECORD_DAYS} days${oldest ? ` (the oldest record you can see is from ${utcMinute(oldest.createdAt)})` : ""}.`,
  ];
  if (scope.tenants !== null)
    possibilities.push(`It belongs to a tenant you cannot see: you see ${scope.tenants.join(", ")} only.`);
  const refs = unseen.map((m) => m.ref);
  return {
    facts: reasons,
    unseen: { refs, traces, days: TRIM_RECORD_DAYS, inYourTenants: scope.tenants !== null, possibilities },
  };
}

/** The API's reasons for the unseen refs: the one "never seen" sentence, then the possibilities. */
function unseenReasons(unseen: UnseenRefs): string[] {
  const within = unseen.inYourTenants ? " in your tenants" : "";
  return [
    `Never seen: ${unseen.refs.join(", ")} — no row, no release and no trim in the last ${unseen.days} days${within}.`,
    ...unseen.possibilities,
  ];
}

/** "2026-03-01 12:00 UTC": reasons are sentences, not timestamps to parse. */
function utcMinute(at: Date): string {
  return `${at.toISOString().slice(0, 16).replace("T", " ")} UTC`;
}
