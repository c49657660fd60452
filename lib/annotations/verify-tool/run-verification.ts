import "server-only";
import { createHash } from "node:crypto";
import type { ToolVerificationResult, VerificationEvidence } from "@/lib/annotations/tool-verification-types";
import { toListedTool } from "@/lib/annotations/list-server-tools";
import { logDeniedRequest } from "@/lib/audit/log-denied";
import { can } from "@/lib/auth/permissions";
import type { IdemConfig } from "@/lib/config/schema";
import type { Db } from "@/lib/db/prisma";
import type { DomainFailure } from "@/lib/errors/error-codes";
import type { Actor } from "@/lib/identity/actor";
import { redactionOf } from "@/lib/privacy/redact";
import { listingEntryHash } from "@/lib/tool-listings/listing-entry-hash";
import { canonicalOf } from "./answer-text";
import { fireCalls } from "./fire-calls";
import { judgeAnswers } from "./judge-answers";
import { bucketEdgeWithin, keyWindowOf } from "./key-window";
import { McpSessionError, openMcpSession } from "./mcp-session";
import { verificationFetch } from "./outbound-fetch";
import { readTable } from "./read-table";
import { settleFindings } from "./settle-findings";
import { storeVerification } from "./store-verification";
import { upstreamProbeFor } from "./upstream-probe";
import { decideVerdict } from "./verdict";
import { verificationInputSchema, type VerificationInput } from "./verification-input";
import { findVerificationTarget, type CommandLineServer } from "./verification-target";

/** Per request to the server or the upstream: a demo processor slowed to 2 s answers well within it. */
export const DEFAULT_CALL_TIMEOUT_MS = 30_000;

export type VerificationDeps = {
  db: Db;
  config: IdemConfig;
  /** verify-tool --stdio: the server's own CI names its command (and counts as marked for verification). */
  commandLine?: CommandLineServer;
  callTimeoutMs?: number;
};

export type VerificationOutcome =
  | { ok: true; verification: ToolVerificationResult; /** Its `tool.verify` audit entry. */ auditId: string }
  | DomainFailure<"forbidden" | "bad_request" | "bad_server" | "not_verifiable" | "unknown_tool" | "unavailable">;

/**
 * The double-call test (issue #18) against one tool: `concurrency` calls at once with the same
 * arguments in different key orders, one more after the first completed; then the answers, the
 * table and the upstream are read, and the verdict with its evidence is stored and audited
 * (one transaction). Admins only, checked here: a verification makes real side effects, so it runs
 * only against servers idem.config.json marks `"verify": true`. Everything refused is refused
 * before the first call: nothing is called for a bad request.
 */
export async function runToolVerification(
  actor: Actor,
  input: VerificationInput,
  deps: VerificationDeps,
): Promise<VerificationOutcome> {
  if (!can(actor.role, "tools:verify")) {
    const message = `Your role (${actor.role}) may not verify tools: a verification makes real side effects; ask an admin.`;
    // A caller that skipped the route's check is refused and audited the same way (access.denied).
    await logDeniedRequest(deps.db, {
      actor,
      status: 403,
      code: "forbidden",
      message,
      method: "RUN",
      path: "verify-tool",
      permission: "tools:verify",
    });
    return { ok: false, code: "forbidden", message };
  }
  const parsed = verificationInputSchema.safeParse(input);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    return { ok: false, code: "bad_request", message: `${issue?.path.join(".") || "input"}: ${issue?.message}` };
  }
  const { server, tool, arguments: args, concurrency } = parsed.data;
  const found = findVerificationTarget(deps.config, server, deps.commandLine);
  if (!found.ok) return found;

  const timeoutMs = deps.callTimeoutMs ?? DEFAULT_CALL_TIMEOUT_MS;
  const fetchImpl = verificationFetch(deps.config);
  let session;
  try {
    session = await openMcpSession(found.target, fetchImpl, timeoutMs);
  } catch (error) {
    if (error instanceof McpSessionError)
      return { ok: false, code: "unavailable", message: `Nothing was called: ${error.message}.` };
    throw error;
  }
  try {
    let listed;
    try {
      listed = await session.listTools();
    } catch (error) {
      return {
        ok: false,
        code: "unavailable",
        message: `Nothing was called: ${server} did not list its tools: ${session.describe(error)}.`,
      };
    }
    const entry = listed.find((t) => t.name === tool);
    if (!entry)
      return {
        ok: false,
        code: "unknown_tool",
        message: `${server} lists no tool ${JSON.stringify(tool)} (it lists: ${listed.map((t) => t.name).join(", ") || "nothing"}).`,
      };
    const listing = listed.map(toListedTool);
    const upstream = upstreamProbeFor(deps.config, tool, args, fetchImpl, timeoutMs);
    await upstream.baseline();

    const startedAt = await earliestNow(deps.db);
    const phases = await fireCalls(session, tool, args, concurrency, redactionOf(deps.config));
    const lastAnswerAt = await latestNow(deps.db);
    const answers = judgeAnswers(phases);
    const keyWindow = keyWindowOf(deps.config, tool);
    const table = await readTable(
      deps.db,
      actor,
      { tool, from: startedAt, to: lastAnswerAt, keyWindow },
      { ref: answers.ref, refs: answers.refs, content: answers.expectedContent },
      phases.calls,
    );
    const upstreamFinding = await upstream.finish(table.key);
    const { checks, lead } = settleFindings({
      tool,
      answers,
      table,
      upstream: upstreamFinding,
      keyWindow,
      edge: keyWindow.kind === "bucket" ? bucketEdgeWithin(startedAt, lastAnswerAt, keyWindow.seconds) : null,
    });
    const verdict = decideVerdict(checks, { rejectedArguments: answers.rejected, lead });
    const evidence: VerificationEvidence = {
      // Answered from an earlier row, the first answer was that row's stored response too: a replay, not an execution.
      calls: phases.calls.map(({ content: _content, ...call }) =>
        table.earlier && call.outcome === "executed" ? { ...call, outcome: "replayed" as const } : call,
      ),
      checks,
      rows: table.rows,
      earlierRow: table.earlier,
      upstream: upstreamFinding.upstream,
      hint: verdict.hint,
    };
    const stored = await storeVerification(deps.db, actor, {
      server,
      tool,
      listing,
      // The entry as the snapshot keeps it (name, annotations), so the tool audit can hash the
      // latest snapshot's entry the same way and call this run stale when they differ.
      listingHash: listingEntryHash(toListedTool(entry)),
      argumentsHash: createHash("sha256").update(canonicalOf(args), "utf8").digest("hex"),
      concurrency,
      verdict: verdict.verdict,
      step: verdict.step,
      summary: verdict.summary,
      evidence,
      startedAt,
      finishedAt: new Date(),
    });
    return { ok: true, ...stored };
  } finally {
    await session.close();
  }
}

/** The run's window by both clocks (this process's and the database's): a writer may stamp rows with either. */
async function earliestNow(db: Db): Promise<Date> {
  const local = Date.now();
  const [row] = await db.$queryRaw<{ now: Date }[]>`SELECT clock_timestamp() AS now`;
  return new Date(Math.min(local, row!.now.getTime()));
}

async function latestNow(db: Db): Promise<Date> {
  const [row] = await db.$queryRaw<{ now: Date }[]>`SELECT clock_timestamp() AS now`;
  return new Date(Math.max(Date.now(), row!.now.getTime()));
}
