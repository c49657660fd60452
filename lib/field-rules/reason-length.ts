/**
 * How long the reason an audited action takes may be (a completion, release, allow-repeat, bulk
 * apply or reveal): the forms check it before sending, `audit-reason.ts` enforces it on the
 * server. Imported by client components: no zod, no server code.
 */

/** The shortest reason an audited action takes (after trimming). */
export const REASON_MIN_LENGTH = 3;

/** The longest: a reason is a sentence for the audit log, not a document. */
export const REASON_MAX_LENGTH = 1000;

export function isReasonLongEnough(reason: string): boolean {
  return reason.trim().length >= REASON_MIN_LENGTH;
}
