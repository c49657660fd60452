import "server-only";
import { z } from "zod";
import { nameWithoutSpacesSchema, serverNameSchema } from "@/lib/field-rules/names";
import type { Actor } from "@/lib/identity/actor";
import { can } from "@/lib/auth/permissions";
import { actorLabel, writeAudit } from "@/lib/audit/write-audit";
import type { Db } from "@/lib/db/prisma";
import type { DomainFailure } from "@/lib/errors/error-codes";
import type { AnnotationReviewNote } from "@/lib/annotations/tool-audit-types";

export const NATURALLY_IDEMPOTENT = "naturally_idempotent";

export const reviewInputSchema = z.strictObject({
  // The names a tools/list snapshot is stored under: no spaces, no control characters.
  server: serverNameSchema,
  tool: nameWithoutSpacesSchema,
  // A review replaces evidence with a person's word: the word has to say something.
  reason: z
    .string()
    .trim()
    .min(10, "say why repeating the call has no additional effect (at least 10 characters)")
    .max(2000),
});
export type ReviewInput = z.output<typeof reviewInputSchema>;

/**
 * Records that a tool is naturally idempotent (a set, not an append), with one audit row in the
 * same transaction. Checks the role itself: callers other than the route may forget to.
 */
export async function recordNaturallyIdempotentReview(
  db: Db,
  actor: Actor,
  input: ReviewInput,
): Promise<{ ok: true; reviewId: string; auditId: string } | DomainFailure<"forbidden">> {
  if (!can(actor.role, "annotations:review"))
    return { ok: false, code: "forbidden", message: `Your role (${actor.role}) may not review annotations.` };
  return db.$transaction(async (tx) => {
    const review = await tx.annotationReview.create({
      select: { id: true },
      data: {
        server: input.server,
        tool: input.tool,
        verdict: NATURALLY_IDEMPOTENT,
        reason: input.reason,
        reviewedBy: actorLabel(actor),
      },
    });
    const audit = await writeAudit(tx, actor, {
      action: "annotation.review",
      after: { server: input.server, tool: input.tool, verdict: NATURALLY_IDEMPOTENT, reviewId: String(review.id) },
      reason: input.reason,
    });
    return { ok: true as const, reviewId: String(review.id), auditId: String(audit.id) };
  });
}

/** The newest review per "server/tool". */
export async function loadLatestReviews(db: Db): Promise<Map<string, AnnotationReviewNote>> {
  const rows = await db.$queryRaw<
    { server: string; tool: string; reason: string; reviewed_by: string; reviewed_at: Date }[]
  >`
    SELECT DISTINCT ON (server, tool) server, tool, reason, reviewed_by, reviewed_at
      FROM annotation_review WHERE verdict = ${NATURALLY_IDEMPOTENT}
     ORDER BY server, tool, reviewed_at DESC, id DESC`;
  return new Map(
    rows.map((r) => [
      reviewKey(r.server, r.tool),
      { reviewedBy: r.reviewed_by, reviewedAt: r.reviewed_at.toISOString(), reason: r.reason },
    ]),
  );
}

export function reviewKey(server: string, tool: string): string {
  return `${server}/${tool}`;
}
