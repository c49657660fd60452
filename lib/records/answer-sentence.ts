import { toolWording } from "@/lib/records/answer-wording";
import { responseFacts, type ResponseFacts } from "@/lib/records/response-facts";

/**
 * The one sentence support can read to the customer, first on a record's page and in its API
 * (issue #28 §4), with the times it rests on, each named for what it is. Built only from what
 * the row, its events and the recorded processor answers show, and from the response as this
 * reader sees it (masked): it never says more than the page does.
 */
export type RecordAnswer = {
  /**
   * done: the side effect happened once; done_again: here and under another key too (a duplicate that got through);
   * refused: it did not happen; unknown / in_progress: not known yet.
   */
  outcome: "done" | "done_again" | "refused" | "not_done" | "unknown" | "in_progress" | "other";
  sentence: string;
  /** The times that matter, oldest first; `at` null where the writer records none. */
  times: AnswerTime[];
  /** From the response's amount_cents, when this reader sees it unmasked. */
  amount: { cents: number; currency: string | null; text: string } | null;
  ids: { label: string; value: string }[];
};

export type AnswerTime = { label: string; at: string | null };

/** A processor answer the audit log kept for this claim (a resolution's evidence). */
export type RecordedCheck = {
  at: string;
  outcome: string;
  reason: string | null;
  actor: string;
  action: string;
};

export type AnswerInput = {
  status: string;
  tool: string | null;
  createdAt: string;
  updatedAt: string | null;
  stuck: boolean;
  /** The response as this reader sees it (masked); `responsePresent` false when none is stored. */
  response: unknown;
  responsePresent: boolean;
  /** The latest outcome_unknown event the writer recorded, if any. */
  outcomeUnknownAt: string | null;
  /** Processor answers recorded for this claim (after its created_at), oldest first. */
  checks: RecordedCheck[];
  /** An earlier claim of this key that was deleted (released, allowed to repeat) before this one. */
  earlierClaimEndedAt: string | null;
  /** The end of the key's time bucket; null for a business key. `protectionEnded`: that end is past. */
  protectionUntil: string | null;
  protectionEnded?: boolean;
  /** The tool's configured search labels (label → `$.path`), which name its ids. */
  searchLabels?: Record<string, string>;
  /** The same operation's other claims the duplicate scan paired with this one (lib/duplicates), oldest first. */
  duplicates?: OtherClaim[];
};

/**
 * Another claim of the same operation, and what its row says now: done (completed, not a refusal), refused,
 * open (in_progress), gone (no longer in the table) or other (a status only its writer knows).
 */
export type OtherClaim = { ref: string; createdAt: string; outcome: "done" | "refused" | "open" | "gone" | "other" };

const OTHER_STATE: Record<OtherClaim["outcome"], string> = {
  done: "which completed",
  refused: "which was refused",
  open: "which has no outcome yet",
  gone: "which is no longer in the table",
  other: "which its writer recorded with a status of its own",
};

/** "on 2026-12-02 at 06:54:50 UTC". */
export function spokenTime(iso: string): string {
  const text = new Date(iso).toISOString();
  return `on ${text.slice(0, 10)} at ${text.slice(11, 19)} UTC`;
}

export function recordAnswer(input: AnswerInput): RecordAnswer {
  const answer = answerOf(input);
  // A completed call's answer counts or names the same call's other claims itself; any other answer names each to check.
  if (input.status === "completed" && (answer.outcome === "done" || answer.outcome === "done_again")) return answer;
  return { ...answer, sentence: `${answer.sentence}${otherClaimsText(input.duplicates ?? [])}` };
}

/** " The same call was also claimed under ref … on …, which …: check it before answering." for each claim. */
function otherClaimsText(others: OtherClaim[]): string {
  return others
    .map(
      (other) =>
        ` The same call was also claimed under ref ${other.ref} ${spokenTime(other.createdAt)}, ${OTHER_STATE[other.outcome]}: check it before answering.`,
    )
    .join("");
}

function answerOf(input: AnswerInput): RecordAnswer {
  const words = toolWording(input.tool);
  const facts = responseFacts(input.response, { idLabel: words.idLabel, searchLabels: input.searchLabels });
  const amount = facts.amount
    ? { cents: facts.amount.cents, currency: facts.amount.currency, text: facts.amount.text }
    : null;
  const ids = facts.ids.map(({ label, value }) => ({ label, value }));
  const ownTimeFits = fitsTheCall(facts.ownTime?.at ?? null, input);
  const times = collectTimes(input, facts, ownTimeFits);
  const base = { times, amount, ids };
  const lastCheck = input.checks.at(-1) ?? null;

  if (input.status === "completed") {
    if (!input.responsePresent || input.response === null)
      return {
        ...base,
        outcome: "other",
        sentence: `Completed, as the writer recorded it, but no response was stored: the record cannot show what ${words.thing} did.`,
      };
    if (facts.refused)
      return {
        ...base,
        outcome: "refused",
        sentence: `${words.notDone}: it was refused${refusalText(facts.refused)}, ${spokenTime((ownTimeFits ? facts.ownTime?.at : null) ?? input.updatedAt ?? input.createdAt)}; a repeat of this call gets the same refusal.`,
      };
    const when = (ownTimeFits ? facts.ownTime?.at : null) ?? input.updatedAt;
    const details = [amount?.text, when ? spokenTime(when) : `requested ${spokenTime(input.createdAt)}`]
      .filter(Boolean)
      .join(", ");
    const idText = ids.length > 0 ? ` (${ids.map((id) => `${id.label} ${id.value}`).join(", ")})` : "";
    // The same call claimed under other keys: counted only where that claim's row says it happened too.
    const again = (input.duplicates ?? []).filter((other) => other.outcome === "done");
    const unsettled = (input.duplicates ?? []).filter((other) => other.outcome !== "done");
    const besides = otherClaimsText(unsettled);
    if (again.length > 0) {
      // At least: the scan pairs each claim with its nearest earlier one, and has not read the youngest claims yet.
      const times = again.length === 1 ? "at least twice" : `at least ${again.length + 1} times`;
      // Oldest first, each by its time and what finds it: this call by its amount and ids, another by its ref.
      const ownFacts = [amount?.text, ...ids.map((id) => `${id.label} ${id.value}`)].filter(Boolean);
      const ownWhen = when ? spokenTime(when) : `requested ${spokenTime(input.createdAt)}`;
      const executions = [
        { at: input.createdAt, text: `${ownWhen}${ownFacts.length > 0 ? ` (${ownFacts.join(", ")})` : ""}` },
        ...again.map((other) => ({ at: other.createdAt, text: `${spokenTime(other.createdAt)} (ref ${other.ref})` })),
      ].sort((a, b) => a.at.localeCompare(b.at));
      return {
        ...base,
        outcome: "done_again",
        sentence: `${words.done} ${times} for the same request: ${executions.map((e) => e.text).join(" and ")}.${besides}`,
      };
    }
    return { ...base, outcome: "done", sentence: `${words.done} once, ${details}${idText}.${besides}` };
  }

  if (input.status === "in_progress") {
    const requested = `${words.thing} was requested ${spokenTime(input.createdAt)}`;
    if (lastCheck?.outcome === "not_taken")
      return {
        ...base,
        outcome: "not_done",
        sentence: `${words.notDone}: the processor has no such ${words.money ? words.thing.replace(/^the /, "") : "operation"} (asked ${spokenTime(lastCheck.at)}).`,
      };
    if (lastCheck?.outcome === "taken")
      return {
        ...base,
        outcome: "done",
        sentence: `${words.done}: the processor says ${words.thing} happened (asked ${spokenTime(lastCheck.at)}), though the record is not completed yet; do not retry.`,
      };
    if (input.outcomeUnknownAt !== null || lastCheck?.outcome === "unknown")
      return {
        ...base,
        outcome: "unknown",
        sentence: `Unknown: the processor did not answer when ${requested}; do not retry; ask again.`,
      };
    if (input.stuck)
      return {
        ...base,
        outcome: "unknown",
        sentence: `Unknown: ${requested} and never finished; do not retry; ask the processor what happened.`,
      };
    return {
      ...base,
      outcome: "in_progress",
      sentence: `In progress: ${requested} and has no outcome yet; do not retry; ask again in a few minutes.`,
    };
  }

  // Any other status is the writer's own word (docs/architecture.md#states): repeat it, claim nothing more.
  return {
    ...base,
    outcome: facts.refused ? "refused" : "other",
    sentence: facts.refused
      ? `${words.notDone}: the writer recorded it as "${input.status}" and the stored response is a refusal${refusalText(facts.refused)}.`
      : `Recorded as "${input.status}" by the writer, ${spokenTime(input.updatedAt ?? input.createdAt)}: the record does not say whether ${words.thing} happened; ask the processor.`,
  };
}

function refusalText(refused: NonNullable<ResponseFacts["refused"]>): string {
  const parts = [refused.code, refused.message].filter((p): p is string => p !== null);
  return parts.length > 0 ? ` (${parts.join(": ")})` : "";
}

/** Clock skew allowed between the writer's and the processor's clocks. */
const SKEW_MS = 60_000;

/**
 * The response's own time is the side effect's only if it falls between the claim and the
 * completion (give or take clock skew): a receipt stamped later than the outcome was stored is
 * not when it happened, and the sentence then names the completion instead.
 */
function fitsTheCall(at: string | null, input: AnswerInput): boolean {
  if (at === null) return false;
  const ms = Date.parse(at);
  if (ms < Date.parse(input.createdAt) - SKEW_MS) return false;
  return input.updatedAt === null || ms <= Date.parse(input.updatedAt) + SKEW_MS;
}

function collectTimes(input: AnswerInput, facts: ResponseFacts, ownTimeFits: boolean): AnswerTime[] {
  const times: AnswerTime[] = [];
  if (input.earlierClaimEndedAt)
    times.push({ label: "An earlier claim of this key was deleted (released)", at: input.earlierClaimEndedAt });
  times.push({ label: "Claimed: the key was recorded, before the side effect", at: input.createdAt });
  if (input.outcomeUnknownAt)
    times.push({ label: "The writer reported no answer from the processor", at: input.outcomeUnknownAt });
  for (const other of input.duplicates ?? [])
    times.push({
      label: `The same call claimed under another key, ref ${other.ref}`,
      at: other.createdAt,
    });
  for (const check of input.checks)
    times.push({ label: `Processor asked by ${check.actor} (${check.action}): ${check.outcome}`, at: check.at });
  if (facts.ownTime)
    times.push({
      label: `The processor's own time on the stored response (${facts.ownTime.field})${ownTimeFits ? "" : ": outside the span from claim to completion, so not taken for when it happened"}`,
      at: facts.ownTime.at,
    });
  if (input.status === "completed")
    times.push(
      input.updatedAt
        ? { label: "Completed: the outcome was stored", at: input.updatedAt }
        : { label: "Completed: time not recorded (this writer does not set updated_at)", at: null },
    );
  if (input.protectionUntil)
    times.push({
      label: input.protectionEnded
        ? "The key stopped catching repeats: an identical call since then runs again"
        : "The key stops catching repeats: an identical call after this runs again",
      at: input.protectionUntil,
    });
  // Oldest first (a stable sort keeps the story's order for equal times); an unrecorded time last.
  const timed = times.filter((t) => t.at !== null).sort((a, b) => (a.at! < b.at! ? -1 : a.at! > b.at! ? 1 : 0));
  return [...timed, ...times.filter((t) => t.at === null)];
}
