import { describe, expect, it } from "vitest";
import { recordAnswer, type AnswerInput } from "@/lib/records/answer-sentence";
import { redactJson } from "@/lib/privacy/redact";

// Each outcome's sentence, from the row as a reader sees it: the words support reads out must be
// true of the data and say no more than the page shows.
const CLAIM = "2026-12-02T06:54:50.120Z";
const base: AnswerInput = {
  status: "completed",
  tool: "charge_card",
  createdAt: CLAIM,
  updatedAt: "2026-12-02T06:54:53.004Z",
  stuck: false,
  response: null,
  responsePresent: true,
  outcomeUnknownAt: null,
  checks: [],
  earlierClaimEndedAt: null,
  protectionUntil: "2026-12-02T07:00:00.000Z",
};
const receipt = {
  id: "ch_3Mq9xYz",
  status: "succeeded",
  amount_cents: 24_000,
  currency: "usd",
  card_last4: "0071",
  reference: "ab".repeat(32),
  created_at: "2026-12-02T06:54:52.480Z",
};

describe("recordAnswer", () => {
  it("a completed charge: once, the amount, the processor's time and the receipt", () => {
    const answer = recordAnswer({ ...base, response: receipt });
    expect(answer.outcome).toBe("done");
    expect(answer.sentence).toBe("Charged once, 24,000 cents USD, on 2026-12-02 at 06:54:52 UTC (receipt ch_3Mq9xYz).");
    expect(answer.amount).toEqual({ cents: 24_000, currency: "USD", text: "24,000 cents USD" });
    // Every time named for what it is, oldest first: the claim, the processor's own, the completion.
    expect(answer.times.map((t) => [t.label.split(":")[0], t.at])).toEqual([
      ["Claimed", CLAIM],
      ["The processor's own time on the stored response (created_at)", "2026-12-02T06:54:52.480Z"],
      ["Completed", "2026-12-02T06:54:53.004Z"],
      ["The key stops catching repeats", "2026-12-02T07:00:00.000Z"],
    ]);
  });

  it("a charge the duplicate scan paired with another: twice, naming the other's ref and time, never once", () => {
    const earlier = { ref: "64ea61c643de", createdAt: "2026-12-02T06:44:58.000Z", outcome: "done" as const };
    const answer = recordAnswer({ ...base, response: receipt, duplicates: [earlier] });
    expect(answer.outcome).toBe("done_again");
    expect(answer.sentence).toBe(
      "Charged at least twice for the same request: on 2026-12-02 at 06:44:58 UTC (ref 64ea61c643de) and on 2026-12-02 at 06:54:52 UTC (24,000 cents USD, receipt ch_3Mq9xYz).",
    );
    expect(answer.times[0]).toEqual({
      label: "The same call claimed under another key, ref 64ea61c643de",
      at: earlier.createdAt,
    });
    const third = { ref: "0123456789ab", createdAt: "2026-12-02T06:58:00.000Z", outcome: "done" as const };
    expect(recordAnswer({ ...base, response: receipt, duplicates: [earlier, third] }).sentence).toMatch(
      /^Charged at least 3 times for the same request: on .* \(ref 64ea61c643de\) and on .* UTC \(24,000 cents USD, receipt ch_3Mq9xYz\) and on 2026-12-02 at 06:58:00 UTC \(ref 0123456789ab\)\.$/,
    );
    // A refusal is not made a duplicate charge by a pair; no pair is once.
    expect(
      recordAnswer({ ...base, response: { error: { code: "card_declined" } }, duplicates: [earlier] }).outcome,
    ).toBe("refused");
    expect(recordAnswer({ ...base, response: receipt, duplicates: [] }).outcome).toBe("done");
  });

  it("a paired claim whose row does not say it happened is not counted: once, and the other named to check", () => {
    const declined = { ref: "64ea61c643de", createdAt: "2026-12-02T06:44:58.000Z", outcome: "refused" as const };
    const open = { ref: "0123456789ab", createdAt: "2026-12-02T06:58:00.000Z", outcome: "open" as const };
    const answer = recordAnswer({ ...base, response: receipt, duplicates: [declined, open] });
    expect(answer.outcome).toBe("done");
    expect(answer.sentence).toBe(
      "Charged once, 24,000 cents USD, on 2026-12-02 at 06:54:52 UTC (receipt ch_3Mq9xYz). The same call was also claimed under ref 64ea61c643de on 2026-12-02 at 06:44:58 UTC, which was refused: check it before answering. The same call was also claimed under ref 0123456789ab on 2026-12-02 at 06:58:00 UTC, which has no outcome yet: check it before answering.",
    );
    const gone = { ...declined, outcome: "gone" as const };
    const twice = recordAnswer({ ...base, response: receipt, duplicates: [{ ...open, outcome: "done" }, gone] });
    expect(twice.outcome).toBe("done_again");
    expect(twice.sentence).toMatch(
      /^Charged at least twice for the same request: on .* UTC \(24,000 cents USD, receipt ch_3Mq9xYz\) and on 2026-12-02 at 06:58:00 UTC \(ref 0123456789ab\)\. The same call was also claimed under ref 64ea61c643de .*, which is no longer in the table: check it before answering\.$/,
    );
  });

  it("a stuck or refused claim paired with another names it, as it stands, to check before answering", () => {
    const charged = { ref: "64ea61c643de", createdAt: "2026-12-02T06:44:58.000Z", outcome: "done" as const };
    const stuck = recordAnswer({ ...base, status: "in_progress", updatedAt: null, stuck: true, duplicates: [charged] });
    expect(stuck.outcome).toBe("unknown");
    expect(stuck.sentence).toBe(
      "Unknown: the charge was requested on 2026-12-02 at 06:54:50 UTC and never finished; do not retry; ask the processor what happened. The same call was also claimed under ref 64ea61c643de on 2026-12-02 at 06:44:58 UTC, which completed: check it before answering.",
    );
    const declined = recordAnswer({ ...base, response: { status: "declined" }, duplicates: [charged] });
    expect(declined.outcome).toBe("refused");
    expect(declined.sentence).toMatch(
      / The same call was also claimed under ref 64ea61c643de .*, which completed: check it before answering\.$/,
    );
    // No pair, no such sentence.
    expect(recordAnswer({ ...base, status: "in_progress", updatedAt: null, stuck: true }).sentence).not.toContain(
      "The same call",
    );
  });

  it("a receipt time outside the claim-to-completion span is not taken for the charge time", () => {
    const late = { ...receipt, created_at: "2026-12-02T07:15:52.000Z" };
    const answer = recordAnswer({ ...base, response: late });
    expect(answer.sentence).toBe("Charged once, 24,000 cents USD, on 2026-12-02 at 06:54:53 UTC (receipt ch_3Mq9xYz).");
    expect(answer.times.find((t) => t.at === "2026-12-02T07:15:52.000Z")?.label).toMatch(
      /\(created_at\): outside the span from claim to completion, so not taken for when it happened$/,
    );
  });

  it("a bucket that has ended is said to have stopped catching repeats", () => {
    const answer = recordAnswer({ ...base, response: receipt, protectionEnded: true });
    expect(answer.times.at(-1)).toEqual({
      label: "The key stopped catching repeats: an identical call since then runs again",
      at: "2026-12-02T07:00:00.000Z",
    });
  });

  it("names the ids by the tool's configured search labels", () => {
    const answer = recordAnswer({ ...base, response: receipt, searchLabels: { charge: "$.id" } });
    expect(answer.ids).toEqual([{ label: "charge", value: "ch_3Mq9xYz" }]);
    expect(answer.sentence).toMatch(/\(charge ch_3Mq9xYz\)\.$/);
  });

  it("a masked amount or id is never read back into the sentence", () => {
    const masked = redactJson(receipt, ["$.amount_cents", "$.id"]).value;
    const answer = recordAnswer({ ...base, response: masked });
    expect(answer.amount).toBeNull();
    expect(answer.ids).toEqual([]);
    expect(answer.sentence).toBe("Charged once, on 2026-12-02 at 06:54:52 UTC.");
    expect(answer.sentence).not.toMatch(/24,000|ch_3Mq|redacted/);
    // By value too: an e-mail address under any key is masked before the answer sees it.
    const email = redactJson({ status: "sent", email_id: "em_1", to: "ann@example.com" }, []).value;
    expect(JSON.stringify(recordAnswer({ ...base, tool: "send_receipt_email", response: email }))).not.toMatch(
      /ann@example\.com/,
    );
  });

  it("a stored decline: not charged, with the processor's reason", () => {
    const decline = {
      status: "failed",
      error: { code: "card_declined", message: "the card was declined" },
      reference: "x",
    };
    const answer = recordAnswer({ ...base, response: decline });
    expect(answer.outcome).toBe("refused");
    expect(answer.sentence).toBe(
      "Not charged: it was refused (card_declined: the card was declined), on 2026-12-02 at 06:54:53 UTC; a repeat of this call gets the same refusal.",
    );
    expect(answer.amount).toBeNull();
  });

  it("a tool that is not a charge gets its own noun; an unknown verb generic words", () => {
    const email = { status: "sent", email_id: "em_1", sent_at: "2026-12-02T06:54:50.700Z" };
    expect(recordAnswer({ ...base, tool: "send_receipt_email", response: email }).sentence).toBe(
      "Receipt email sent once, on 2026-12-02 at 06:54:50 UTC.",
    );
    expect(
      recordAnswer({ ...base, tool: "create_shipment", response: { id: "shp_1", tracking_number: "1Z99" } }).sentence,
    ).toBe("Shipment created once, on 2026-12-02 at 06:54:53 UTC (id shp_1, tracking 1Z99).");
    expect(recordAnswer({ ...base, tool: "frobnicate", response: { ok: true } }).sentence).toBe(
      "The frobnicate call completed once, on 2026-12-02 at 06:54:53 UTC.",
    );
  });

  it("an honest writer (no tool, no updated_at) still gets a true sentence", () => {
    const answer = recordAnswer({ ...base, tool: null, updatedAt: null, response: { ok: true } });
    expect(answer.sentence).toBe("Completed once, requested on 2026-12-02 at 06:54:50 UTC.");
    expect(answer.times.at(-1)).toEqual({
      label: "Completed: time not recorded (this writer does not set updated_at)",
      at: null,
    });
  });

  it("completed with no response stored claims nothing it cannot show", () => {
    const answer = recordAnswer({ ...base, responsePresent: false });
    expect(answer.outcome).toBe("other");
    expect(answer.sentence).toMatch(/^Completed, as the writer recorded it, but no response was stored/);
  });

  it("in progress, stuck, and the writer's outcome_unknown", () => {
    const open = { ...base, status: "in_progress", updatedAt: null };
    expect(recordAnswer(open).sentence).toBe(
      "In progress: the charge was requested on 2026-12-02 at 06:54:50 UTC and has no outcome yet; do not retry; ask again in a few minutes.",
    );
    expect(recordAnswer({ ...open, stuck: true }).outcome).toBe("unknown");
    expect(recordAnswer({ ...open, stuck: true }).sentence).toMatch(/^Unknown: .* never finished; do not retry;/);
    const unknown = recordAnswer({ ...open, outcomeUnknownAt: "2026-12-02T06:55:20.000Z" });
    expect(unknown.sentence).toBe(
      "Unknown: the processor did not answer when the charge was requested on 2026-12-02 at 06:54:50 UTC; do not retry; ask again.",
    );
    expect(unknown.times.map((t) => t.label)).toContain("The writer reported no answer from the processor");
  });

  it("a recorded processor answer for this claim is the answer", () => {
    const open = { ...base, status: "in_progress", updatedAt: null };
    const check = { at: "2026-12-02T07:10:00.000Z", outcome: "not_taken", reason: "no such", actor: "op", action: "x" };
    expect(recordAnswer({ ...open, checks: [check] }).sentence).toBe(
      "Not charged: the processor has no such charge (asked on 2026-12-02 at 07:10:00 UTC).",
    );
    expect(recordAnswer({ ...open, checks: [{ ...check, outcome: "unknown" }] }).outcome).toBe("unknown");
  });

  it("a status only the writer knows is repeated, not interpreted", () => {
    const answer = recordAnswer({ ...base, status: "failed", response: { note: "gave up" } });
    expect(answer.outcome).toBe("other");
    expect(answer.sentence).toBe(
      'Recorded as "failed" by the writer, on 2026-12-02 at 06:54:53 UTC: the record does not say whether the charge happened; ask the processor.',
    );
  });

  it("a claim after a release says so among its times", () => {
    const answer = recordAnswer({ ...base, response: receipt, earlierClaimEndedAt: "2026-12-02T06:50:00.000Z" });
    expect(answer.times[0]).toEqual({
      label: "An earlier claim of this key was deleted (released)",
      at: "2026-12-02T06:50:00.000Z",
    });
  });
});
