import { CanonicalJsonError, deriveKey, KEY_SCHEMES, type KeyScheme } from "idem-guard";
import { diffCanonical, type CanonicalDiff } from "@/lib/records/canonical-diff";

/**
 * Do these arguments derive this record's key? The record keeps the key (sha256 of
 * `tenant|subject|tool|canonical|bucket`), never the arguments, so the only questions a check can
 * answer are the hash's own: equal or not, for each canonical scheme and for the bucket the
 * record's created_at falls in and the two beside it (a writer's clock a little off the
 * database's `now()` puts the same call one bucket over). A hash cannot say where two inputs
 * differ, so "which byte differs" is answered only against a reference: arguments that are shown,
 * here, to derive the record's key. Pure: idem-guard's derivation, no database.
 */

export type BucketPosition = "previous" | "same" | "next";
const POSITIONS: readonly { position: BucketPosition; shift: -1 | 0 | 1 }[] = [
  { position: "same", shift: 0 },
  { position: "previous", shift: -1 },
  { position: "next", shift: 1 },
];

/** What the record holds that the key was derived from (tool null: the writer did not record it). */
export type HashedRecord = {
  key: string;
  tenant: string;
  subject: string | null;
  tool: string | null;
  createdAt: Date;
};

export type Bucket = { position: BucketPosition; bucket: string; startsAt: string; endsAt: string };

/** One derivation tried: a scheme in a bucket, and whether it gave the record's key. */
export type Candidate = Bucket & { scheme: KeyScheme; key: string; ref: string; matches: boolean };

export type CanonicalForm = { scheme: KeyScheme; text: string; bytes: number };

/** Where the pasted arguments and the reference first differ, in the scheme under which the reference derives the key. */
export type ReferenceCheck =
  { proven: true; scheme: KeyScheme; position: BucketPosition; diff: CanonicalDiff } | { proven: false };

export type ArgumentsComparison =
  | {
      verdict: "match" | "no_match";
      windowSeconds: number;
      /** The record's bucket and its neighbours, in that order. */
      buckets: Bucket[];
      candidates: Candidate[];
      /** The first candidate that derived the record's key, in the order: python-json before jcs, same bucket first. */
      match: Candidate | null;
      /** The pasted arguments' canonical form under each scheme: the bytes hashed. */
      canonical: CanonicalForm[];
      /** null when no reference was given. */
      reference: ReferenceCheck | null;
    }
  | { verdict: "cannot_check"; reason: string };

export type CompareInput = {
  /** The arguments as JSON text. */
  args: string;
  windowSeconds: number;
  /** Arguments believed to be the record's (a previous matching check, the tool server's log). */
  reference: string | null;
};

export type CompareFailure = { field: "args" | "reference"; message: string };

export const CANNOT_CHECK_TOOL =
  "This writer did not record the tool, and the tool's name is part of what is hashed: no arguments can be checked against this key.";

/** The comparison, or which argument text is not JSON (with the parser's message). */
export function compareArguments(
  record: HashedRecord,
  input: CompareInput,
): { ok: true; comparison: ArgumentsComparison } | { ok: false; error: CompareFailure } {
  if (record.tool === null) return { ok: true, comparison: { verdict: "cannot_check", reason: CANNOT_CHECK_TOOL } };
  const tool = record.tool;
  const windowMs = input.windowSeconds * 1000;
  const derivations = (field: CompareFailure["field"], args: string) => {
    try {
      return {
        ok: true as const,
        candidates: KEY_SCHEMES.flatMap((scheme) =>
          POSITIONS.map(({ position, shift }) => {
            const derived = deriveKey({
              tenant: record.tenant,
              subject: record.subject,
              tool,
              argumentsJson: args,
              at: new Date(record.createdAt.getTime() + shift * windowMs),
              windowSeconds: input.windowSeconds,
              scheme,
            });
            const startMs = Number(derived.bucket) * windowMs;
            return {
              candidate: {
                position,
                bucket: derived.bucket,
                startsAt: new Date(startMs).toISOString(),
                endsAt: new Date(startMs + windowMs).toISOString(),
                scheme,
                key: derived.key,
                ref: derived.ref,
                matches: derived.key === record.key,
              } satisfies Candidate,
              canonical: derived.canonical,
            };
          }),
        ),
      };
    } catch (error) {
      if (error instanceof CanonicalJsonError)
        return { ok: false as const, error: { field, message: `${field}: not valid JSON — ${error.message}` } };
      throw error;
    }
  };

  const pasted = derivations("args", input.args);
  if (!pasted.ok) return pasted;
  const candidates = pasted.candidates.map((d) => d.candidate);
  const canonical = KEY_SCHEMES.map((scheme) => {
    const text = pasted.candidates.find((d) => d.candidate.scheme === scheme)?.canonical ?? "";
    return { scheme, text, bytes: Buffer.byteLength(text, "utf8") };
  });

  let reference: ReferenceCheck | null = null;
  if (input.reference !== null) {
    const known = derivations("reference", input.reference);
    if (!known.ok) return known;
    const proof = known.candidates.find((d) => d.candidate.matches);
    if (!proof) reference = { proven: false };
    else {
      const mine = canonical.find((c) => c.scheme === proof.candidate.scheme)?.text ?? "";
      reference = {
        proven: true,
        scheme: proof.candidate.scheme,
        position: proof.candidate.position,
        diff: diffCanonical(proof.canonical, mine),
      };
    }
  }

  const match = candidates.find((c) => c.matches) ?? null;
  return {
    ok: true,
    comparison: {
      verdict: match ? "match" : "no_match",
      windowSeconds: input.windowSeconds,
      // The python-json candidates, one per position: a bucket does not depend on the scheme.
      buckets: candidates
        .filter((c) => c.scheme === KEY_SCHEMES[0])
        .map(({ position, bucket, startsAt, endsAt }) => ({ position, bucket, startsAt, endsAt })),
      candidates,
      match,
      canonical,
      reference,
    },
  };
}
