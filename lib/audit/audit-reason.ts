/**
 * The reason an audited action takes (a completion, release, bulk apply or reveal): the forms
 * check it before sending and the server enforces it, one definition for both. Imported by
 * client components: no server code here.
 */

/** The shortest reason an audited action takes (after trimming). */
export const REASON_MIN_LENGTH = 3;

export function isReasonLongEnough(reason: string): boolean {
  return reason.trim().length >= REASON_MIN_LENGTH;
}
