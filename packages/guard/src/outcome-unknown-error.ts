/**
 * Thrown by a handler when the side effect may or may not have happened (a processor timeout):
 * the guard leaves the claim in_progress and tells the caller so, instead of guessing.
 */
export class OutcomeUnknownError extends Error {
  constructor(
    message: string,
    readonly waitedMs?: number,
  ) {
    super(message);
    this.name = "OutcomeUnknownError";
  }
}
