import type { EarlierRow, VerificationCheck, VerificationEvidence } from "@/lib/annotations/tool-verification-types";
import { canonicalOf } from "./answer-text";
import { bucketEnd, describeKeyWindow, utcSecond, type KeyWindow } from "./key-window";

/** More rows than this in the window is already a finding; the evidence keeps this many. */
export const MAX_ROWS = 20;
/** The most rows of the window read (this tool's first, then those recording no tool). */
export const WINDOW_LIMIT = 200;

/** A row as the table side reads it. `tool` is null for a writer that records none (the reference writer). */
export type TableRow = { key: string; tool: string | null; status: string; response: unknown; createdAt: Date };

/** What a call answered, as far as the table side needs it: the ref it named, its comparable content. */
export type AnsweredCall = {
  outcome: "executed" | "in_flight" | "replayed" | "error";
  ref: string | null;
  content: string | null;
};

export type TableFinding = VerificationCheck & {
  rows: VerificationEvidence["rows"];
  /** The row's key when exactly one row is the run's (or the earlier row's, when it answered every call). */
  key: string | null;
  /** The row written before the run that answered every call: the run tested nothing. */
  earlier: EarlierRow | null;
  /** A finding two keys for one call explain (a bucket edge inside the run gives honest writers two). */
  cause?: "two_keys";
};

/** Which rows are the run's, from what every writer writes (the key, the response) and what some do (the tool). */
export type RowAttribution = {
  /** Certainly the run's: named by an in-flight answer's ref, or recording this tool, written during the run. */
  runRows: TableRow[];
  /** Named by an in-flight answer's ref but written before the run began. */
  earlierByRef: TableRow | null;
  /** Rows recording no tool, written during the run, that more than one of hold the same answer: not told apart. */
  ambiguous: TableRow[];
  /** Rows recording no tool, written during the run, tied to nothing of it (other calls'). */
  untied: number;
};

/**
 * The run's rows without assuming an optional column: a row is the run's when its key starts with the ref an
 * in-flight answer named (whatever its tool column says, and at any age), when it records this tool and was
 * written during the run, or — for a writer that records no tool — when it was written during the run and is
 * completed with a response one of the calls received. A response two such rows share ties neither (it may be
 * another tool's identical answer), unless the answers named the run's row by its ref.
 */
export function attributeRows(
  rows: readonly TableRow[],
  run: { tool: string; from: Date; refs: readonly string[]; contents: readonly string[] },
): RowAttribution {
  const byRef = (row: TableRow) => run.refs.some((ref) => row.key.startsWith(ref));
  const runRows: TableRow[] = [];
  let earlierByRef: TableRow | null = null;
  const tied: TableRow[] = [];
  let untied = 0;
  const seen = new Set<string>();
  for (const row of rows) {
    if (seen.has(row.key)) continue;
    seen.add(row.key);
    if (byRef(row)) {
      if (row.createdAt < run.from) earlierByRef ??= row;
      else runRows.push(row);
    } else if (row.tool === run.tool) runRows.push(row);
    else if (row.tool === null && row.status === "completed" && run.contents.includes(safeCanonical(row.response)))
      tied.push(row);
    else if (row.tool === null) untied += 1;
  }
  // Named by its ref, the run's row needs no tie by response: the others are other calls'.
  if (runRows.some(byRef)) return { runRows, earlierByRef, ambiguous: [], untied: untied + tied.length };
  const byContent = new Map<string, TableRow[]>();
  for (const row of tied) {
    const content = safeCanonical(row.response);
    byContent.set(content, [...(byContent.get(content) ?? []), row]);
  }
  const ambiguous = [...byContent.values()].filter((group) => group.length > 1).flat();
  runRows.push(...[...byContent.values()].filter((group) => group.length === 1).flat());
  return { runRows: sortRows(runRows), earlierByRef, ambiguous, untied };
}

/**
 * The table side: exactly one row of the run, whose key starts with the ref the in-flight answers named,
 * completed with the response the repeats received. A server that keys on the bytes it received writes one
 * row per key order; one that claims nothing writes none. When the run wrote no row because every call was
 * answered from a row that existed before it began, it tested nothing: that is said (with until when the
 * key holds), never held against the tool. Nothing is concluded from the absence of an optional column.
 */
export function judgeTable(input: {
  tool: string;
  attribution: RowAttribution;
  /** The earlier row that answered the calls, found by the ref (attribution) or by their response. */
  earlier: TableRow | null;
  /** The window query stopped at its limit: rows beyond it were not read. */
  truncated: boolean;
  expected: { ref: string | null; content: string | null };
  calls: readonly AnsweredCall[];
  keyWindow: KeyWindow;
  from: Date;
}): TableFinding {
  const { tool, attribution, expected } = input;
  const runRows = attribution.runRows;
  const rows = runRows
    .slice(0, MAX_ROWS)
    .map((r) => ({ key: r.key, status: r.status, createdAt: r.createdAt.toISOString(), tool: r.tool }));
  const finding = (
    result: VerificationCheck["result"],
    detail: string,
    key: string | null = null,
    extra: Partial<TableFinding> = {},
  ): TableFinding => ({ step: "table", result, detail, rows, key, earlier: null, ...extra });
  const toolless = (row: TableRow) => (row.tool === null ? " (no tool recorded)" : "");

  if (runRows.length === 0) {
    const earlier = input.earlier;
    if (earlier && answeredFrom(earlier, input.calls)) {
      const holds = earlierRowOf(earlier, input, attribution.earlierByRef === earlier ? "ref" : "response");
      return finding("inconclusive", describeEarlier(holds, tool, input.from), earlier.key, {
        earlier: holds,
        rows: [],
      });
    }
    if (attribution.ambiguous.length > 0)
      return finding(
        "inconclusive",
        `${attribution.ambiguous.length} rows recording no tool, written during the run, hold the same response the calls received (keys ${refsOf(attribution.ambiguous)}): with no tool column, the run's row cannot be told from another call's with the same answer`,
      );
    if (input.truncated)
      return finding(
        "inconclusive",
        `more rows were written during the run than the ${WINDOW_LIMIT} read, none of them tied to the run: its row may be among the others`,
      );
    if (expected.ref !== null && attribution.earlierByRef === null)
      return finding(
        "inconclusive",
        `the in-flight answers named ref ${expected.ref}, but the table holds no row whose key starts with it: the server writes its claims to another database than the one this run read, or the row was released meanwhile`,
      );
    const meanwhile =
      attribution.untied > 0
        ? ` (${attribution.untied} row${attribution.untied === 1 ? "" : "s"} recording no tool ${attribution.untied === 1 ? "was" : "were"} written meanwhile, none named by a ref the answers gave or holding a response a call received)`
        : "";
    const partly = earlier
      ? `; row ${earlier.key.slice(0, 12)}, written before the run, answered some calls, but others executed`
      : "";
    return finding(
      "failed",
      `the table holds no row for ${tool} written during the run — none recording ${tool}, none recording no tool that holds a response the calls received${meanwhile}${partly}: the tool claimed no idempotency key before its side effect`,
    );
  }
  if (runRows.length > 1) {
    const count = runRows.length > MAX_ROWS ? `more than ${MAX_ROWS}` : String(runRows.length);
    const noTool = runRows.filter((r) => r.tool === null).length;
    return finding(
      "failed",
      `the table holds ${count} rows for ${tool} written during the run (keys ${refsOf(runRows)}${noTool > 0 ? `; ${noTool} recording no tool, tied to the run by the responses its calls received` : ""}), not 1: the same call was claimed under more than one key`,
      null,
      { cause: "two_keys" },
    );
  }
  const row = runRows[0]!;
  const ref = row.key.slice(0, 12);
  if (expected.ref !== null && !row.key.startsWith(expected.ref))
    return finding(
      "failed",
      `the one row for ${tool} has key ${ref}…, but the in-flight answers named ref ${expected.ref}`,
      row.key,
      { cause: "two_keys" },
    );
  if (row.status !== "completed")
    return finding(
      "failed",
      `the row ${ref}${toolless(row)} is ${row.status}, not completed, after every call answered`,
      row.key,
    );
  if (expected.content !== null && safeCanonical(row.response) !== expected.content)
    return finding(
      "failed",
      `the row ${ref}${toolless(row)} is completed with a response other than the one the repeat received`,
      row.key,
    );
  const how =
    row.tool === null
      ? ` (no tool recorded; ${expected.ref !== null ? "named by the ref the in-flight answers gave" : "tied to the run by the response its calls received"})`
      : "";
  return finding(
    "passed",
    `one row for ${tool} (ref ${ref})${how}, completed with the response the repeat received`,
    row.key,
  );
}

/** Every call was told "in flight" under the earlier row's ref, or received its stored response. */
export function answeredFrom(earlier: TableRow, calls: readonly AnsweredCall[]): boolean {
  if (calls.length === 0) return false;
  const stored = earlier.status === "completed" ? safeCanonical(earlier.response) : null;
  return calls.every((call) =>
    call.outcome === "in_flight"
      ? call.ref !== null && earlier.key.startsWith(call.ref)
      : stored !== null && call.content === stored,
  );
}

function earlierRowOf(
  row: TableRow,
  input: { tool: string; keyWindow: KeyWindow; from: Date },
  foundBy: EarlierRow["foundBy"],
): EarlierRow {
  const base = {
    key: row.key,
    status: row.status,
    createdAt: row.createdAt.toISOString(),
    tool: row.tool,
    foundBy,
  };
  const window = input.keyWindow;
  if (window.kind === "business_key")
    return { ...base, keyHoldsUntil: null, bucketStart: null, window: describeKeyWindow(window, input.tool) };
  const end = bucketEnd(row.createdAt, window.seconds);
  if (end <= input.from)
    // The bucket the console assumed had ended, yet the calls still got the row: the writer's key is not that bucket.
    return {
      ...base,
      keyHoldsUntil: null,
      bucketStart: null,
      window: `${describeKeyWindow(window, input.tool)}, which ended at ${utcSecond(end)}, before this run, yet its key still answered: the writer keys ${input.tool} by a business key or a longer window`,
    };
  return {
    ...base,
    keyHoldsUntil: end.toISOString(),
    bucketStart: new Date(end.getTime() - window.seconds * 1000).toISOString(),
    window: describeKeyWindow(window, input.tool),
  };
}

/** The table's sentence about the earlier row; the verdict's summary (settle-findings.ts) leads with the answers. */
function describeEarlier(row: EarlierRow, tool: string, from: Date): string {
  const tooled = row.tool === null ? ", no tool recorded" : "";
  const found =
    row.foundBy === "ref" ? "named by the ref the in-flight answers gave" : "holding the response every call received";
  const age = Math.max(0, Math.round((from.getTime() - Date.parse(row.createdAt)) / 1000));
  const holds =
    row.keyHoldsUntil === null
      ? `Its key holds past any time bucket (${row.window})`
      : `Its key answers the same arguments until ${utcSecond(row.keyHoldsUntil)}, the end of ${row.window}`;
  return `no row for ${tool} was written during the run: row ${row.key.slice(0, 12)} (${row.status}${tooled}, ${found}) was written at ${utcSecond(row.createdAt)}, ${age} s before the run began. ${holds}`;
}

function refsOf(rows: readonly TableRow[]): string {
  return `${rows
    .slice(0, 3)
    .map((r) => r.key.slice(0, 12))
    .join(", ")}${rows.length > 3 ? ", …" : ""}`;
}

function sortRows(rows: TableRow[]): TableRow[] {
  return [...rows].sort((a, b) => a.createdAt.getTime() - b.createdAt.getTime() || (a.key < b.key ? -1 : 1));
}

/** A stored response the canonical form refuses (a huge number) matches nothing rather than breaking the run. */
function safeCanonical(value: unknown): string {
  try {
    return canonicalOf(value);
  } catch {
    return "\u0000unmatchable";
  }
}
