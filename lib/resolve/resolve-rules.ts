/**
 * The rules of a resolution that the forms check before sending and the server enforces: one
 * definition for both (the reason's rule is lib/audit/audit-reason.ts). Imported by client
 * components: no server code here.
 */

/** What an admin types to force a release when the processor's answer is unknown. */
export const FORCE_RELEASE_CONFIRMATION = "force release";
