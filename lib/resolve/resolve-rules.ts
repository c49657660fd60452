/**
 * The rules of a resolution that the forms check before sending and the server enforces: one
 * definition for both. Imported by client components: no server code here.
 */

/** What an admin types to force a release when the processor's answer is unknown. */
export const FORCE_RELEASE_CONFIRMATION = "force release";

/** The shortest reason a completion, release, bulk apply or reveal takes (after trimming). */
export const REASON_MIN_LENGTH = 3;

export function isReasonLongEnough(reason: string): boolean {
  return reason.trim().length >= REASON_MIN_LENGTH;
}
