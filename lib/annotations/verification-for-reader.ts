import type { Actor } from "@/lib/identity/actor";
import { redactJson, type Redaction } from "@/lib/privacy/redact";
import type { LatestVerification, VerificationEvidence } from "@/lib/annotations/tool-verification-types";

export const WITHHELD = "[withheld]";

/**
 * What a reader of the audit may see of a stored run. For everyone: the answers' texts masked by the
 * configured redaction, as the audit log's evidence is for every role (a JSON answer by its paths and
 * values, anything else by value). For an actor limited to tenants: the verdict and what each side
 * found, but not the run's table rows, refs or answer texts — a run does not record the tenant its calls
 * wrote under, so they may be another tenant's — and those keys and refs are cut out of the sentences too.
 */
export function verificationForReader(run: LatestVerification, actor: Actor, redaction: Redaction): LatestVerification {
  const masked = maskEvidence(run.evidence, redaction);
  if (actor.tenants.length === 0) return { ...run, evidence: masked };
  const keys = [
    ...run.evidence.rows.map((r) => r.key),
    ...(run.evidence.earlierRow ? [run.evidence.earlierRow.key] : []),
    ...(run.evidence.upstream?.reference ? [run.evidence.upstream.reference] : []),
  ];
  const secrets = [
    // A key and its ref (the sentences name rows by their first 12 characters).
    ...keys.flatMap((key) => [key, key.slice(0, 12)]),
    ...run.evidence.calls.flatMap((c) => (c.ref ? [c.ref] : [])),
  ]
    .filter((s) => s.length > 0)
    // Longest first: a key contains its own ref.
    .sort((a, b) => b.length - a.length);
  const scrub = (text: string) => secrets.reduce((t, secret) => t.replaceAll(secret, WITHHELD), text);
  return {
    ...run,
    summary: scrub(run.summary),
    evidence: {
      calls: masked.calls.map((c) => ({ ...c, ref: null, text: WITHHELD })),
      checks: masked.checks.map((c) => ({ ...c, detail: scrub(c.detail) })),
      rows: [],
      ...(masked.earlierRow
        ? { earlierRow: { ...masked.earlierRow, key: WITHHELD, window: scrub(masked.earlierRow.window) } }
        : {}),
      upstream: masked.upstream ? { ...masked.upstream, reference: null, detail: scrub(masked.upstream.detail) } : null,
      hint: masked.hint === null ? null : scrub(masked.hint),
    },
  };
}

function maskEvidence(evidence: VerificationEvidence, redaction: Redaction): VerificationEvidence {
  const calls = evidence.calls.map((call) => ({ ...call, text: maskAnswerText(call.text, redaction) }));
  // Then by value everywhere else (a receipt quoted in a check's sentence, an address in the upstream's detail).
  return redactJson({ ...evidence, calls }, redaction).value as VerificationEvidence;
}

/** An answer's text is usually a JSON document: its configured paths apply inside it. */
function maskAnswerText(text: string, redaction: Redaction): string {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    return String(redactJson(text, redaction).value);
  }
  if (typeof parsed !== "object" || parsed === null) return String(redactJson(text, redaction).value);
  const { value, redactedPaths } = redactJson(parsed, redaction);
  return redactedPaths.length === 0 ? text : JSON.stringify(value);
}
