/**
 * An error whose message is written for the person at the keyboard: the CLI prints it as one
 * line (exit 2 for bad input, 1 for an unavailable dependency) and the API answers it as a 4xx.
 */
export class UserError extends Error {
  constructor(
    message: string,
    readonly exitCode: 1 | 2 = 2,
  ) {
    super(message);
    this.name = "UserError";
  }
}
